// The client of one endpoint (chat_client.cpp), without fallbacks or ensemble; make_client
// (routed_client.cpp) wraps several of them when the configuration has more than one endpoint.
#pragma once

#include <memory>

#include "llm/client.h"

namespace llm {

// Throws LlmError(BadRequest) for an unknown api, an empty url/model or a bad `extra`.
std::unique_ptr<ChatClient> make_endpoint_client(const EndpointConfig& config);

}  // namespace llm
