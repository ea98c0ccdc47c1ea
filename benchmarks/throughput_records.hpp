// `throughput records RECORDS.jsonl...`: the stage parts of recorded verdicts
// (throughput_records.cpp).
#pragma once

int throughput_records(int argc, char** argv);
