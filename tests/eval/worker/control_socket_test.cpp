// The warm judge's channel: lines with descriptors attached, shared memory behind them, and the
// placement of a trial's tensors in an exchange set.
#include "ptxbench/eval/worker/control_socket.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <thread>

#include "ptxbench/eval/correctness/session_protocol.hpp"
#include "ptxbench/eval/worker/shared_memory.hpp"

namespace ptxbench::eval::worker {
namespace {

TEST(ControlSocket, LinesCarryDescriptorsToSharedMemory) {
  auto pair = ControlSocket::pair();
  ASSERT_TRUE(pair.has_value()) << pair.error().message;
  auto& [ours, theirs] = *pair;
  auto memory = SharedMemory::create(4096);
  ASSERT_TRUE(memory.has_value()) << memory.error().message;
  std::memcpy(memory->data(), "judge", 5);
  ASSERT_TRUE(theirs.send(R"({"ok": true})", {memory->fd()}));
  ASSERT_TRUE(theirs.send("second"));
  auto first = ours.receive(std::chrono::seconds(5));
  ASSERT_TRUE(first.has_value()) << first.error().message;
  EXPECT_EQ(first->line, R"({"ok": true})");
  ASSERT_EQ(first->fds.size(), 1u);
  // The descriptor names the same memory: what one side writes the other reads.
  auto mapped = SharedMemory::map(first->fds[0].get(), 4096);
  ASSERT_TRUE(mapped.has_value()) << mapped.error().message;
  EXPECT_EQ(std::memcmp(mapped->data(), "judge", 5), 0);
  std::memcpy(mapped->data() + 100, "candidate", 9);
  EXPECT_EQ(std::memcmp(memory->data() + 100, "candidate", 9), 0);
  auto second = ours.receive(std::chrono::seconds(5));
  ASSERT_TRUE(second.has_value());
  EXPECT_EQ(second->line, "second");
  EXPECT_TRUE(second->fds.empty());
}

TEST(ControlSocket, SilenceAndAClosedPeerAreErrors) {
  auto pair = ControlSocket::pair();
  ASSERT_TRUE(pair.has_value());
  auto& [ours, theirs] = *pair;
  auto silent = ours.receive(std::chrono::milliseconds(200));
  ASSERT_FALSE(silent.has_value());
  EXPECT_EQ(silent.error().message, "timed out");
  { ControlSocket gone = std::move(theirs); }
  auto closed = ours.receive(std::chrono::seconds(5));
  ASSERT_FALSE(closed.has_value());
  EXPECT_NE(closed.error().message.find("closed"), std::string::npos);
}

TEST(ControlSocket, ALongLineArrivesWhole) {
  auto pair = ControlSocket::pair();
  ASSERT_TRUE(pair.has_value());
  auto& [ours, theirs] = *pair;
  const std::string line(3 << 20, 'x');  // larger than the socket's buffer
  std::thread writer([&] { EXPECT_TRUE(theirs.send(line)); });
  auto got = ours.receive(std::chrono::seconds(10));
  writer.join();
  ASSERT_TRUE(got.has_value()) << got.error().message;
  EXPECT_EQ(got->line.size(), line.size());
}

TEST(SharedMemory, ASmallerObjectThanAskedIsRefused) {
  auto memory = SharedMemory::create(4096);
  ASSERT_TRUE(memory.has_value());
  auto too_big = SharedMemory::map(memory->fd(), 1 << 20);
  ASSERT_FALSE(too_big.has_value());
  EXPECT_NE(too_big.error().message.find("holds 4096 bytes"), std::string::npos);
}

TEST(ExchangeLayout, TrialsMoveAndEveryTensorIsAlignedInsideTheSet) {
  WorkerJob job;
  job.inputs = {{.name = "A", .dtype = task::DType::kBFloat16, .shape = {70, 5120}},
                {.name = "B", .dtype = task::DType::kBFloat16, .shape = {7168, 5120}}};
  job.outputs = {{.name = "C", .dtype = task::DType::kBFloat16, .shape = {70, 7168}}};
  WorkerJob small = job;
  small.inputs[0].shape = {1, 5120};
  const auto set_bytes = correctness::exchange_set_bytes({small, job});
  for (int trial = 0; trial < 40; ++trial) {
    const auto placement = correctness::place_trial(job, trial);
    ASSERT_EQ(placement.inputs.size(), 2u);
    ASSERT_EQ(placement.outputs.size(), 1u);
    for (auto at : placement.inputs) EXPECT_EQ(at % 512, 0u);
    EXPECT_EQ(placement.outputs[0] % 512, 0u);
    EXPECT_GE(placement.inputs[1], placement.inputs[0] + job.inputs[0].bytes());
    EXPECT_GE(placement.outputs[0], placement.inputs[1] + job.inputs[1].bytes());
    EXPECT_LE(placement.outputs[0] + job.outputs[0].bytes(), set_bytes);
    // No two trials in a row see the same addresses.
    EXPECT_NE(placement.inputs[0], correctness::place_trial(job, trial + 1).inputs[0]);
  }
}

}  // namespace
}  // namespace ptxbench::eval::worker
