// JSON form of an Evaluation (schema_version kSchemaVersion). Reading checks the version and
// reports the field that is wrong.
#pragma once
#include <nlohmann/json.hpp>

#include "ptxbench/eval/evaluation.hpp"
#include "ptxbench/util/expected.hpp"

namespace ptxbench::eval {

nlohmann::json to_json(const Evaluation& evaluation);
util::Expected<Evaluation> evaluation_from_json(const nlohmann::json& json);

}  // namespace ptxbench::eval
