#include "reference_checks.hpp"

#include <algorithm>
#include <cmath>

#include "ptxbench/eval/correctness/output_comparison.hpp"

namespace ptxbench::eval::correctness::test {

bool have_gpu(std::string& why) {
  int count = 0;
  cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess || count == 0) {
    why = status != cudaSuccess ? cudaGetErrorString(status) : "no CUDA device";
    return false;
  }
  return true;
}

std::vector<float> download_floats(const void* device, std::int64_t elements) {
  std::vector<float> out(static_cast<std::size_t>(elements));
  EXPECT_EQ(cudaMemcpy(out.data(), device, out.size() * sizeof(float), cudaMemcpyDeviceToHost),
            cudaSuccess);
  return out;
}

std::vector<float> download(const eval::gpu::DeviceTensor& t) {
  if (t.desc().dtype == task::DType::kFloat32) return download_floats(t.data(), t.elements());
  std::vector<std::uint16_t> bits(static_cast<std::size_t>(t.elements()));
  EXPECT_EQ(cudaMemcpy(bits.data(), t.data(), t.bytes(), cudaMemcpyDeviceToHost), cudaSuccess);
  std::vector<float> out(bits.size());
  for (std::size_t i = 0; i < bits.size(); ++i) out[i] = worker::bfloat16_to_float(bits[i]);
  return out;
}

void upload(const std::vector<float>& values, eval::gpu::DeviceTensor& t) {
  if (t.desc().dtype == task::DType::kFloat32) {
    EXPECT_EQ(cudaMemcpy(t.data(), values.data(), t.bytes(), cudaMemcpyHostToDevice), cudaSuccess);
    return;
  }
  std::vector<std::uint16_t> bits(values.size());
  for (std::size_t i = 0; i < bits.size(); ++i) bits[i] = worker::float_to_bfloat16(values[i]);
  EXPECT_EQ(cudaMemcpy(t.data(), bits.data(), t.bytes(), cudaMemcpyHostToDevice), cudaSuccess);
}

namespace {

double dot(const std::vector<float>& x, std::size_t x0, const std::vector<float>& y, std::size_t y0,
           int dim) {
  double sum = 0;
  for (int d = 0; d < dim; ++d) sum += double{x[x0 + d]} * double{y[y0 + d]};
  return sum;
}

}  // namespace

CpuAttention attention_forward_on_cpu(const std::vector<float>& q, const std::vector<float>& k,
                                      const std::vector<float>& v, int heads, int length, int dim,
                                      double scale, bool causal) {
  CpuAttention out;
  out.o.assign(q.size(), 0.0);
  out.lse.assign(static_cast<std::size_t>(heads) * length, 0.0);
  std::vector<double> scores(static_cast<std::size_t>(length));
  for (int h = 0; h < heads; ++h) {
    std::size_t base = static_cast<std::size_t>(h) * length * dim;
    for (int i = 0; i < length; ++i) {
      int keys = causal ? i + 1 : length;
      double max_score = -INFINITY;
      for (int j = 0; j < keys; ++j) {
        scores[j] =
            scale * dot(q, base + std::size_t(i) * dim, k, base + std::size_t(j) * dim, dim);
        max_score = std::max(max_score, scores[j]);
      }
      double sum = 0;
      for (int j = 0; j < keys; ++j) sum += std::exp(scores[j] - max_score);
      double lse = max_score + std::log(sum);
      out.lse[std::size_t(h) * length + i] = lse;
      for (int j = 0; j < keys; ++j) {
        double p = std::exp(scores[j] - lse);
        for (int d = 0; d < dim; ++d)
          out.o[base + std::size_t(i) * dim + d] += p * v[base + std::size_t(j) * dim + d];
      }
    }
  }
  return out;
}

void attention_backward_on_cpu(const std::vector<float>& q, const std::vector<float>& k,
                               const std::vector<float>& v, const std::vector<float>& o,
                               const std::vector<float>& d_o, const std::vector<float>& lse,
                               int heads, int length, int dim, double scale, bool causal,
                               CpuAttention& out) {
  out.dq.assign(q.size(), 0.0);
  out.dk.assign(q.size(), 0.0);
  out.dv.assign(q.size(), 0.0);
  for (int h = 0; h < heads; ++h) {
    std::size_t base = static_cast<std::size_t>(h) * length * dim;
    for (int i = 0; i < length; ++i) {
      std::size_t qi = base + std::size_t(i) * dim;
      double delta = dot(d_o, qi, o, qi, dim);
      int keys = causal ? i + 1 : length;
      for (int j = 0; j < keys; ++j) {
        std::size_t kj = base + std::size_t(j) * dim;
        double p = std::exp(scale * dot(q, qi, k, kj, dim) - lse[std::size_t(h) * length + i]);
        double ds = p * (dot(d_o, qi, v, kj, dim) - delta);
        for (int d = 0; d < dim; ++d) {
          out.dv[kj + d] += p * d_o[qi + d];
          out.dq[qi + d] += scale * ds * k[kj + d];
          out.dk[kj + d] += scale * ds * q[qi + d];
        }
      }
    }
  }
}

double scaled_max_error(const std::vector<float>& x, const std::vector<double>& y) {
  double worst = 0, scale = 0;
  for (std::size_t i = 0; i < std::min(x.size(), y.size()); ++i) {
    worst = std::max(worst, std::fabs(double{x[i]} - y[i]));
    scale = std::max(scale, std::fabs(y[i]));
  }
  return worst / (scale + 1e-30);
}

}  // namespace ptxbench::eval::correctness::test
