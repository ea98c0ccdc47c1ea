// The trusted half of correctness: no candidate code is loaded here. The judge regenerates each
// trial's inputs from the recorded seed, computes the reference with the baseline, reads the
// candidate's outputs from the exchange files and applies the element rule on the GPU; it also
// computes the high-precision reference and the figures of "as accurate as the library"
// (docs/correctness.md). With a reference cache (reference_cache/judge_references.hpp) a trial
// whose library outputs and reference were computed before, on this GPU with these libraries,
// takes them from the host cache instead; the candidate's outputs are never cached.
#include <fmt/format.h>

#include <fstream>
#include <optional>
#include <vector>

#include "ptxbench/eval/correctness/correctness_protocol.hpp"
#include "ptxbench/eval/correctness/gpu/baseline.hpp"
#include "ptxbench/eval/correctness/gpu/tensor_kernels.hpp"
#include "ptxbench/eval/correctness/gpu/trial_accuracy.hpp"
#include "ptxbench/eval/reference_cache/judge_references.hpp"
#include "ptxbench/eval/worker/exchange.hpp"
#include "ptxbench/eval/worker/gpu/device_tensors.hpp"
#include "ptxbench/eval/worker/gpu/gpu_timer.hpp"
#include "ptxbench/eval/worker/gpu/worker_modes.hpp"

namespace ptxbench::eval::gpu {
namespace {

using worker::ReplyStatus;

// The candidate's output from its file, on the GPU; an Error when missing or of the wrong size.
util::Expected<DeviceBuffer> load_output(const std::filesystem::path& file, std::size_t bytes) {
  std::error_code error;
  auto size = std::filesystem::file_size(file, error);
  if (error) return util::make_error("no output file " + file.filename().string());
  if (size != bytes) {
    return util::make_error(
        fmt::format("{} holds {} bytes, expected {}", file.filename().string(), size, bytes));
  }
  std::vector<char> host(bytes);
  std::ifstream in(file, std::ios::binary);
  in.read(host.data(), static_cast<std::streamsize>(bytes));
  if (!in) return util::make_error("cannot read " + file.filename().string());
  DeviceBuffer device = expect_value(DeviceBuffer::try_allocate(bytes), "judge buffer");
  PTXBENCH_CUDA_CHECK(cudaMemcpy(device.data(), host.data(), bytes, cudaMemcpyHostToDevice));
  return util::Expected<DeviceBuffer>(std::move(device));
}

std::vector<char> download(const void* device, std::size_t bytes) {
  std::vector<char> host(bytes);
  if (bytes > 0)
    PTXBENCH_CUDA_CHECK(cudaMemcpy(host.data(), device, bytes, cudaMemcpyDeviceToHost));
  return host;
}

// A cached trial: the library's outputs into the trial's output tensors and the reference into
// fresh buffers (stream-ordered); no memory for the reference is recorded like a failed compute.
correctness::gpu::TrialAccuracy restore(const worker::WorkerJob& job,
                                        const reference_cache::ReferenceEntry& entry,
                                        DeviceTensors& tensors, cudaStream_t stream) {
  for (std::size_t i = 0; i < entry.library.size(); ++i) {
    PTXBENCH_CUDA_CHECK(cudaMemcpyAsync(tensors.outputs()[i].data(), entry.library[i].data(),
                                        entry.library[i].size(), cudaMemcpyHostToDevice, stream));
  }
  std::vector<DeviceBuffer> reference;
  for (const auto& blob : entry.reference) {
    auto buffer = DeviceBuffer::try_allocate(blob.size());
    if (!buffer) return {job, {}, "no device memory for the cached high-precision reference"};
    PTXBENCH_CUDA_CHECK(
        cudaMemcpyAsync(buffer->data(), blob.data(), blob.size(), cudaMemcpyHostToDevice, stream));
    reference.push_back(std::move(buffer.value()));
  }
  // The host blobs must outlive the copies.
  PTXBENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
  return {job, std::move(reference), entry.reference_unavailable};
}

// What a computed trial offers the cache (after the stream has finished).
reference_cache::ReferenceEntry entry_of(const DeviceTensors& tensors,
                                         const correctness::gpu::TrialAccuracy& accuracy) {
  reference_cache::ReferenceEntry entry{.reference_unavailable = accuracy.unavailable()};
  for (const auto& output : tensors.outputs())
    entry.library.push_back(download(output.data(), output.desc().bytes()));
  for (const auto& reference : accuracy.reference())
    entry.reference.push_back(download(reference.data(), reference.bytes()));
  return entry;
}

}  // namespace

int run_judge_mode(const std::vector<worker::WorkerJob>& jobs) {
  PTXBENCH_CUDA_CHECK(cudaSetDevice(0));
  CudaStream stream;
  process_parts().mark(part::kContext);
  correctness::JudgeReply reply;
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    const worker::WorkerJob& job = jobs[j];
    auto baseline = make_baseline(job, stream.get());
    process_parts().mark(part::kLibraryReference);
    if (!baseline) {
      print_reply(ReplyStatus::kUnsupported, baseline.error().message, to_json(reply));
      return 0;
    }
    correctness::JudgeJob record{.workload = job.workload,
                                 .baseline = baseline.value()->describe()};
    reference_cache::JudgeReferences references(job);
    for (int t = 0; t < job.trials; ++t) {
      std::uint64_t seed = worker::trial_seed(job.seed, t);
      DeviceTensors tensors = expect_value(
          make_trial_tensors(job, seed, stream.get(), baseline.value().get()), "trial tensors");
      std::vector<std::string> input_hashes;
      for (const auto& input : tensors.inputs()) {
        input_hashes.push_back(fmt::format("{:016x}", input.hash(stream.get())));
      }
      process_parts().mark(part::kInputs);
      auto cached = references.find(seed);
      process_parts().mark(part::kCopies);
      std::optional<correctness::gpu::TrialAccuracy> computed;
      if (!cached) {
        baseline.value()->run(tensors.inputs(), tensors.outputs(), stream.get());
        PTXBENCH_CUDA_CHECK(cudaStreamSynchronize(stream.get()));  // to split the parts
        process_parts().mark(part::kLibraryReference);
        computed.emplace(job, tensors.inputs(), stream.get());
      }
      correctness::gpu::TrialAccuracy accuracy =
          cached ? restore(job, *cached, tensors, stream.get()) : std::move(*computed);
      PTXBENCH_CUDA_CHECK(cudaStreamSynchronize(stream.get()));
      process_parts().mark(cached ? part::kCopies : part::kPreciseReference);
      // Only whole entries: a reference missing for want of memory now may be there next time.
      if (!cached && references.enabled() && !accuracy.reference().empty())
        references.offer(seed, entry_of(tensors, accuracy));
      process_parts().mark(part::kCopies);
      std::vector<correctness::JudgedOutput> outputs;
      for (const auto& reference : tensors.outputs()) {
        const auto& desc = reference.desc();
        auto file = worker::exchange_file(job.exchange_dir, j, t, desc.name);
        auto candidate = load_output(file, desc.bytes());
        process_parts().mark(part::kCopies);
        if (!candidate) {
          print_reply(ReplyStatus::kInternalError, candidate.error().message, to_json(reply));
          return 0;
        }
        auto totals =
            compare_tensors(candidate->data(), reference.data(), desc.dtype, desc.elements(),
                            job.tolerance.atol, job.tolerance.rtol, stream.get());
        correctness::JudgedOutput output{.name = desc.name, .totals = totals};
        accuracy.add_to(output, outputs.size(), candidate->data(), reference, stream.get());
        outputs.push_back(std::move(output));
        process_parts().mark(part::kComparison);
      }
      record.trials.push_back({.trial = t,
                               .seed = seed,
                               .input_hashes = std::move(input_hashes),
                               .outputs = std::move(outputs)});
    }
    reply.jobs.push_back(std::move(record));
    reply.reference_cache.hits += references.counts().hits;
    reply.reference_cache.misses += references.counts().misses;
  }
  print_reply(ReplyStatus::kOk, "", to_json(reply));
  return 0;
}

}  // namespace ptxbench::eval::gpu
