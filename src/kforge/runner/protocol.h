#pragma once
// The wire between kforge and kforge-run: one JSON object per SOCK_SEQPACKET message, with file
// descriptors (shared-memory buffers) attached as SCM_RIGHTS. Both sides use these functions.

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kforge/core/result.h"

namespace kforge::runner {

inline constexpr int kChannelFd = 3;  // the runner's end of the socket pair

struct Message {
  nlohmann::json body;
  std::vector<int> fds;  // received descriptors; the receiver owns them
};

// Sends one message. Returns false if the peer is gone.
bool send_message(int socket, const nlohmann::json& body, const std::vector<int>& fds = {});

// Waits for one message. An Error when the deadline passes ("timeout"), the peer closes
// ("closed") or the bytes are not a JSON object ("malformed: ...").
Result<Message> receive_message(
    int socket, std::optional<std::chrono::steady_clock::time_point> deadline = std::nullopt);

// After the sandbox closes only read(2) and write(2) on the channel remain: these carry one
// message each without attached descriptors.
bool write_message(int socket, const nlohmann::json& body);
Result<nlohmann::json> read_message(int socket);

// Creates a sealed-capable shared memory file of `bytes` bytes (MFD_ALLOW_SEALING).
Result<int> create_shared_file(const char* name, std::size_t bytes);

}  // namespace kforge::runner
