// The newer API's destination-first calls take more of their parameters by position than the
// legacy calls do (nki-language.md 12.2 against 8.3). The interpreter binds such a call against
// this order, and the loop-nest lifter reads its positional arguments by it, so both agree.
#pragma once

#include <string>
#include <vector>

namespace nki::lib {

// The positional parameters after `dst` of the destination-first form of nisa.<instruction>, in
// order; nullptr where the legacy form's positional parameters are the same.
const std::vector<std::string>* isa_newer_positional(const std::string& instruction);

}  // namespace nki::lib
