// The routes of `kforge serve`: pages, the JSON API, server-sent events and the hitl sessions.
#include "kforge/web/server.h"

#include <fmt/format.h>
#include <httplib.h>

#include <chrono>
#include <thread>

#include "kforge/eval/bench_compare.h"
#include "kforge/modes/run_graph.h"
#include "kforge/modes/session_summary.h"
#include "kforge/store/result_json.h"
#include "kforge/store/results.h"
#include "kforge/store/store.h"
#include "kforge/web/assets.h"
#include "kforge/web/hitl_host.h"
#include "kforge/web/run_launcher.h"
#include "kforge/web/run_view.h"

namespace kforge::web {
namespace {

constexpr auto kEventPoll = std::chrono::milliseconds(400);
constexpr auto kEventKeepAlive = std::chrono::seconds(15);

// Text that may hold a partial UTF-8 sequence (a model's reply cut by the stream) still makes
// valid JSON.
std::string dump(const nlohmann::json& j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

void send_json(httplib::Response& res, const nlohmann::json& j, int status = 200) {
  res.status = status;
  res.set_content(dump(j), "application/json");
}

void send_error(httplib::Response& res, int status, const std::string& message) {
  send_json(res, {{"error", message}}, status);
}

// The token a request presents: an Authorization header, the kforge_token cookie, or ?token=.
std::string presented_token(const httplib::Request& req) {
  auto auth = req.get_header_value("Authorization");
  if (auth.rfind("Bearer ", 0) == 0) return auth.substr(7);
  auto cookies = req.get_header_value("Cookie");
  for (std::size_t at = cookies.find("kforge_token="); at != std::string::npos;
       at = cookies.find("kforge_token=", at + 1))
    if (at == 0 || cookies[at - 1] == ' ' || cookies[at - 1] == ';') {
      auto start = at + 13;
      return cookies.substr(start, cookies.find(';', start) - start);
    }
  return req.get_param_value("token");
}

std::optional<nlohmann::json> json_body(const httplib::Request& req, httplib::Response& res) {
  auto j = nlohmann::json::parse(req.body, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    send_error(res, 400, "the body is not a JSON object");
    return std::nullopt;
  }
  return j;
}

std::string string_field(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

Result<std::unique_ptr<Server>> Server::create(ServerOptions options) {
  bool loopback = is_loopback_name(options.host);
  if (!loopback && !options.allow_remote)
    return Error{fmt::format(
        "--host {} is not this machine's loopback: other machines could reach the server; give "
        "--allow-remote as well (every request must then carry the token printed at start)",
        options.host)};
  if (options.port < 0 || options.port > 65535)
    return Error{fmt::format("--port {} is not a TCP port", options.port)};
  std::unique_ptr<Server> s(new Server(std::move(options)));
  s->guard_.loopback = loopback;
  if (!loopback) s->guard_.token = random_token();
  return s;
}

Server::Server(ServerOptions options)
    : options_(std::move(options)),
      scratch_(options_.state_dir / "tmp"),
      http_(std::make_unique<httplib::Server>()),
      launcher_(std::make_unique<RunLauncher>(options_.binary, options_.state_dir)) {
  // Server-sent event streams hold a thread each: room for many pages at once.
  http_->new_task_queue = [] { return new httplib::ThreadPool(64); };
  routes();
}

Server::~Server() {
  stop();
  launcher_->stop_all();  // runs started from the page stop as after Ctrl-C, resumable
  std::lock_guard lock(hitl_mu_);
  hitl_.clear();  // each host stops its session and marks the run finished
}

Result<int> Server::bind() {
  int port = options_.port;
  if (port == 0) {
    port = http_->bind_to_any_port(options_.host);
    if (port < 0) return Error{fmt::format("cannot bind to {}", options_.host)};
  } else if (!http_->bind_to_port(options_.host, port)) {
    return Error{fmt::format("cannot bind to {}:{} (in use? try --port)", options_.host, port)};
  }
  guard_.port = port;
  return port;
}

void Server::serve() { http_->listen_after_bind(); }

void Server::stop() {
  stopping_ = true;
  http_->stop();
}

std::string Server::url() const {
  std::string host = options_.host.find(':') != std::string::npos && options_.host[0] != '['
                         ? "[" + options_.host + "]"
                         : options_.host;
  std::string u = fmt::format("http://{}:{}/", host, guard_.port);
  return guard_.token.empty() ? u : u + "?token=" + guard_.token;
}

std::shared_ptr<HitlHost> Server::hitl(const std::string& id) {
  std::lock_guard lock(hitl_mu_);
  auto it = hitl_.find(id);
  return it == hitl_.end() ? nullptr : it->second;
}

void Server::routes() {
  auto& h = *http_;
  h.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
    RequestFacts facts{req.method, req.get_header_value("Host"), req.get_header_value("Origin"),
                       req.get_header_value("Content-Type"), presented_token(req)};
    if (auto refusal = check_request(guard_, facts)) {
      send_error(res, refusal->status, refusal->reason);
      return httplib::Server::HandlerResponse::Handled;
    }
    // The page never runs in a frame of another site; its scripts are its own.
    res.set_header("X-Frame-Options", "DENY");
    res.set_header("X-Content-Type-Options", "nosniff");
    res.set_header("Content-Security-Policy",
                   "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'");
    // A token given in the address becomes a cookie, so the page's own requests carry it.
    if (!guard_.token.empty() && !req.get_param_value("token").empty())
      res.set_header("Set-Cookie",
                     "kforge_token=" + guard_.token + "; HttpOnly; SameSite=Strict; Path=/");
    return httplib::Server::HandlerResponse::Unhandled;
  });
  h.set_exception_handler(
      [](const httplib::Request&, httplib::Response& res, const std::exception_ptr& ep) {
        std::string what = "internal error";
        try {
          std::rethrow_exception(ep);
        } catch (const std::exception& e) {
          what = std::string("internal error: ") + e.what();
        } catch (...) {
        }
        send_error(res, 500, what);
      });

  auto asset = [](const std::string& name, httplib::Response& res) {
    const Asset* a = find_asset(name);
    if (!a) return send_error(res, 404, "no such page");
    res.set_content(std::string(a->body), std::string(a->mime).c_str());
  };
  h.Get("/",
        [asset](const httplib::Request&, httplib::Response& res) { asset("index.html", res); });
  h.Get(
      R"(/static/([A-Za-z0-9_.-]+))",
      [asset](const httplib::Request& req, httplib::Response& res) { asset(req.matches[1], res); });

  auto open_db = [this](httplib::Response& res) -> std::unique_ptr<store::Database> {
    auto db = store::open_store(store::store_path(options_.state_dir));
    if (!db) {
      send_error(res, 500, db.error().message);
      return nullptr;
    }
    return std::move(*db);
  };

  h.Get("/api/sessions", [this, open_db](const httplib::Request&, httplib::Response& res) {
    auto db = open_db(res);
    if (!db) return;
    auto rows = modes::summarize_sessions(*db, options_.state_dir);
    if (!rows) return send_error(res, 500, rows.error().message);
    nlohmann::json out = nlohmann::json::array();
    for (const auto& s : *rows) {
      auto j = s.to_json();
      j["open_here"] = hitl(s.run.id) != nullptr;
      out.push_back(j);
    }
    send_json(res, out);
  });

  h.Get(R"(/api/runs/([A-Za-z0-9_-]+))",
        [this, open_db](const httplib::Request& req, httplib::Response& res) {
          auto db = open_db(res);
          if (!db) return;
          auto view = run_view(*db, req.matches[1], scratch_.dir());
          if (!view) return send_error(res, 404, view.error().message);
          send_json(res, *view);
        });

  h.Get(R"(/api/runs/([A-Za-z0-9_-]+)/graph\.svg)",
        [open_db](const httplib::Request& req, httplib::Response& res) {
          auto db = open_db(res);
          if (!db) return;
          auto run = store::find_run(*db, req.matches[1]);
          if (!run || !*run) return send_error(res, 404, "no such run");
          auto nodes = store::nodes_of_run(*db, req.matches[1]);
          if (!nodes) return send_error(res, 500, nodes.error().message);
          auto svg = modes::dot_to_svg(modes::run_graph_dot(**run, *nodes));
          if (!svg) return send_error(res, 500, svg.error().message);
          res.set_content(*svg, "image/svg+xml");
        });

  // Server-sent events: "change" whenever the run's rows change (a search growing), then "end"
  // once the run has ended, and the stream closes: a finished run's page (a screenshot, `curl -N`)
  // is not kept waiting. The page closes its EventSource on "end", which would otherwise reconnect.
  h.Get(R"(/api/runs/([A-Za-z0-9_-]+)/events)", [this](const httplib::Request& req,
                                                       httplib::Response& res) {
    std::string id = req.matches[1];
    res.set_header("Cache-Control", "no-cache");
    res.set_chunked_content_provider(
        "text/event-stream",
        [this, id, last = std::string("\x01"), idle = std::chrono::steady_clock::now()](
            std::size_t, httplib::DataSink& sink) mutable {
          auto db = store::open_store(store::store_path(options_.state_dir));
          while (!stopping_ && sink.is_writable()) {
            auto fp = db ? run_fingerprint(**db, id) : Result<std::string>(db.error());
            std::string now = fp ? *fp : "error";
            if (now != last) {
              last = now;
              std::string msg = "event: change\ndata: " + dump({{"fingerprint", now}}) + "\n\n";
              if (!sink.write(msg.data(), msg.size())) return false;
              idle = std::chrono::steady_clock::now();
            }
            // After the change that carries the final state: nothing more will come.
            if (const std::string state = db ? ended_state(**db, id) : ""; !state.empty()) {
              std::string msg = "event: end\ndata: " + dump({{"state", state}}) + "\n\n";
              if (!sink.write(msg.data(), msg.size())) return false;
              break;
            }
            if (std::chrono::steady_clock::now() - idle > kEventKeepAlive) {
              if (!sink.write(": keep-alive\n\n", 14)) return false;
              idle = std::chrono::steady_clock::now();
            }
            std::this_thread::sleep_for(kEventPoll);
          }
          sink.done();
          return true;
        });
  });

  // Saved bench results, sent by the page (it reads the files the user picks; the server reads
  // none): each task's speedup, and two results compared as `kforge compare` does.
  h.Post("/api/bench/speedups", [](const httplib::Request& req, httplib::Response& res) {
    auto body = json_body(req, res);
    if (!body) return;
    auto r = eval::parse_bench_results(body->value("result", nlohmann::json()), "the result");
    if (!r) return send_error(res, 400, r.error().message);
    send_json(res, eval::bench_speedups(*r));
  });
  h.Post("/api/bench/compare", [](const httplib::Request& req, httplib::Response& res) {
    auto body = json_body(req, res);
    if (!body) return;
    auto a = eval::parse_bench_results(body->value("a", nlohmann::json()), "A");
    if (!a) return send_error(res, 400, a.error().message);
    auto b = eval::parse_bench_results(body->value("b", nlohmann::json()), "B");
    if (!b) return send_error(res, 400, b.error().message);
    send_json(res, eval::compare_bench(*a, *b));
  });

  // Results kept in the store (kforge bench and eval write them): the sets, newest first, each
  // with its summary and task ids; one set read as its bench --json (what the two endpoints above
  // take); and one task's rows across the bench sets, oldest first: its speedup over time.
  h.Get("/api/results", [open_db](const httplib::Request& req, httplib::Response& res) {
    auto db = open_db(res);
    if (!db) return;
    store::ResultFilter f{req.has_param("command") ? req.get_param_value("command") : "bench",
                          req.get_param_value("task"), req.get_param_value("target"), 200};
    auto sets = store::list_result_sets(*db, f);
    if (!sets) return send_error(res, 500, sets.error().message);
    nlohmann::json out = nlohmann::json::array();
    for (const auto& s : *sets) {
      auto rows = store::results_of_set(*db, s.id);
      if (!rows) return send_error(res, 500, rows.error().message);
      auto j = store::result_set_json(s, *rows, false);
      j["task_ids"] = nlohmann::json::array();
      for (const auto& r : *rows) j["task_ids"].push_back(r.task);
      out.push_back(j);
    }
    send_json(res, out);
  });
  h.Get(R"(/api/results/(\d{1,15}))",
        [open_db](const httplib::Request& req, httplib::Response& res) {
          auto db = open_db(res);
          if (!db) return;
          auto set = store::find_result_set(*db, std::stoll(req.matches[1]));
          if (!set) return send_error(res, 500, set.error().message);
          if (!*set) return send_error(res, 404, "no such result");
          auto rows = store::results_of_set(*db, (*set)->id);
          if (!rows) return send_error(res, 500, rows.error().message);
          send_json(res, store::result_set_json(**set, *rows, true));
        });
  h.Get(R"(/api/results/history/([A-Za-z0-9_.-]{1,200}))",
        [open_db](const httplib::Request& req, httplib::Response& res) {
          auto db = open_db(res);
          if (!db) return;
          auto points = store::task_history(*db, req.matches[1]);
          if (!points) return send_error(res, 500, points.error().message);
          nlohmann::json out = nlohmann::json::array();
          for (const auto& p : *points) {
            auto j = store::kept_result_json(p.result);
            j["result"] = p.set.id;
            j["when"] = p.set.created_at;
            j["git_sha"] = p.set.git_sha;
            j["hostname"] = p.set.hostname;
            j["threads"] = p.set.threads;
            j["target"] = p.set.target;
            out.push_back(j);
          }
          send_json(res, {{"task", std::string(req.matches[1])}, {"points", out}});
        });

  // Runs started from the page.
  h.Post("/api/launch", [this](const httplib::Request& req, httplib::Response& res) {
    auto body = json_body(req, res);
    if (!body) return;
    auto request = LaunchRequest::from_json(*body);
    if (!request) return send_error(res, 400, request.error().message);
    auto number = launcher_->launch(*request);
    if (!number) return send_error(res, 500, number.error().message);
    send_json(res, {{"number", *number}});
  });
  h.Get("/api/launches", [this, open_db](const httplib::Request&, httplib::Response& res) {
    auto db = open_db(res);
    if (!db) return;
    send_json(res, launcher_->list(*db));
  });
  h.Post(R"(/api/launches/(\d{1,9})/stop)",
         [this](const httplib::Request& req, httplib::Response& res) {
           if (auto st = launcher_->stop(std::stoi(req.matches[1])); !st)
             return send_error(res, 409, st.error().message);
           send_json(res, {{"stopping", true}});
         });

  // Hitl sessions: start or resume, then commands and answers.
  h.Post("/api/hitl", [this](const httplib::Request& req, httplib::Response& res) {
    auto body = json_body(req, res);
    if (!body) return;
    HitlRequest r{string_field(*body, "task"), string_field(*body, "size"),
                  string_field(*body, "model"), string_field(*body, "resume")};
    if (!r.resume.empty()) {
      if (!is_safe_id(r.resume)) return send_error(res, 400, "not a session id");
      if (auto open = hitl(r.resume); open && !open->ended())
        return send_json(res, {{"run_id", r.resume}, {"already_open", true}});
    } else if (r.task.empty()) {
      return send_error(res, 400, "a task (or a session to resume) is needed");
    }
    if (!options_.open_hitl) return send_error(res, 500, "this server cannot run hitl sessions");
    auto backend = options_.open_hitl(r);
    if (!backend) return send_error(res, 422, backend.error().message);
    auto host = std::make_shared<HitlHost>(std::move(*backend));
    std::string id = host->run_id();
    {
      std::lock_guard lock(hitl_mu_);
      hitl_[id] = host;
    }
    send_json(res, {{"run_id", id}});
  });

  h.Get(R"(/api/hitl/([A-Za-z0-9_-]+))",
        [this](const httplib::Request& req, httplib::Response& res) {
          auto host = hitl(req.matches[1]);
          if (!host) return send_error(res, 404, "this session is not open here: resume it");
          std::size_t since = 0;
          try {
            since = req.has_param("since") ? std::stoull(req.get_param_value("since")) : 0;
          } catch (const std::exception&) {
            return send_error(res, 400, "since: not a number");
          }
          send_json(res, host->snapshot(since));
        });

  h.Post(R"(/api/hitl/([A-Za-z0-9_-]+)/command)",
         [this](const httplib::Request& req, httplib::Response& res) {
           auto host = hitl(req.matches[1]);
           if (!host) return send_error(res, 404, "this session is not open here: resume it");
           auto body = json_body(req, res);
           if (!body) return;
           auto line = string_field(*body, "line");
           if (line.empty()) return send_error(res, 400, "no command");
           if (auto st = host->submit(line); !st) return send_error(res, 409, st.error().message);
           send_json(res, {{"queued", line}});
         });

  h.Post(R"(/api/hitl/([A-Za-z0-9_-]+)/answer)", [this](const httplib::Request& req,
                                                        httplib::Response& res) {
    auto host = hitl(req.matches[1]);
    if (!host) return send_error(res, 404, "this session is not open here: resume it");
    auto body = json_body(req, res);
    if (!body) return;
    auto gate = body->find("gate");
    if (gate == body->end() || !gate->is_number_integer())
      return send_error(res, 400, "gate: the id of the question answered");
    bool cancel = body->value("cancel", false);
    if (auto st = host->answer(gate->get<std::int64_t>(), string_field(*body, "text"), cancel); !st)
      return send_error(res, 409, st.error().message);
    send_json(res, {{"answered", gate->get<std::int64_t>()}});
  });

  h.Get(R"(/api/hitl/([A-Za-z0-9_-]+)/events)",
        [this](const httplib::Request& req, httplib::Response& res) {
          auto host = hitl(req.matches[1]);
          if (!host) return send_error(res, 404, "this session is not open here: resume it");
          res.set_header("Cache-Control", "no-cache");
          res.set_chunked_content_provider(
              "text/event-stream",
              [this, host, seen = std::uint64_t(-1), idle = std::chrono::steady_clock::now()](
                  std::size_t, httplib::DataSink& sink) mutable {
                while (!stopping_ && sink.is_writable()) {
                  // Short waits, so that a stopping server does not wait on an idle page.
                  auto now = host->wait_change(seen, std::chrono::seconds(1));
                  std::string msg;
                  if (now != seen)
                    msg = fmt::format("event: change\ndata: {}\n\n", now);
                  else if (std::chrono::steady_clock::now() - idle > kEventKeepAlive)
                    msg = ": keep-alive\n\n";
                  seen = now;
                  if (!msg.empty()) {
                    if (!sink.write(msg.data(), msg.size())) return false;
                    idle = std::chrono::steady_clock::now();
                  }
                  if (host->ended()) break;
                }
                sink.done();
                return true;
              });
        });
}

}  // namespace kforge::web
