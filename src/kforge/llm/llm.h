#pragma once
// The llm layer's face. Agents open one LlmSession per run and call complete():
//
//   auto config = llm::load_config();                         // kforge.toml ([models], [prices],
//   [llm]) auto session = llm::LlmSession::open(*config, {.command = "kforge auto 12p", .model =
//   flag_model,
//                                                   .budget = {.max_usd = 2.0}, .cancel =
//                                                   llm::install_interrupt_handler()});
//   llm::ChatRequest req{.agent_role = "planner", .messages = {{"system", prompt}, {"user",
//   task}}}; llm::StreamCallback show = [](const llm::StreamDelta& d) { fmt::print("{}", d.text);
//   }; auto reply = (*session)->complete(req, &show);            // LlmResult: ChatReply or
//   LlmError{kind, message} if (!reply && reply.kind() == llm::ErrorKind::budget_exhausted) { /*
//   stop cleanly */ }
//
// Providers: openai, openai-compatible, anthropic, gemini (HTTP, streamed or not), cmd:COMMAND
// (a program), replay:FILE (a recorded transcript). Every call is priced, charged to the
// budget, and recorded in .kforge/sessions/<id>/transcript.jsonl and .kforge/kforge.db.

#include "kforge/llm/budget.h"  // Budget, BudgetLimits
#include "kforge/llm/chat.h"  // ChatMessage, ChatRequest, ChatReply, Usage, StreamDelta, StreamCallback
#include "kforge/llm/config.h"        // LlmConfig, load_config
#include "kforge/llm/interrupt.h"     // install_interrupt_handler
#include "kforge/llm/llm_error.h"     // ErrorKind, LlmError, LlmResult, LlmResultOf
#include "kforge/llm/model_client.h"  // ModelClient, ClientOptions, make_client
#include "kforge/llm/model_spec.h"    // ModelSpec, parse_model_spec
#include "kforge/llm/prices.h"        // Price, PriceTable
#include "kforge/llm/session.h"       // LlmSession, SessionOptions, SessionTotals
