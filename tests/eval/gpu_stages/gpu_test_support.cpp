#include "gpu_test_support.hpp"

#include <algorithm>

namespace ptxbench::eval::gpu::testing {

worker::TensorDesc bf16(std::string name, std::vector<std::int64_t> shape) {
  return worker::TensorDesc{
      .name = std::move(name), .dtype = task::DType::kBFloat16, .shape = std::move(shape)};
}

worker::TensorDesc fp32(std::string name, std::vector<std::int64_t> shape) {
  return worker::TensorDesc{
      .name = std::move(name), .dtype = task::DType::kFloat32, .shape = std::move(shape)};
}

AttentionReference attention_on_cpu(const std::vector<float>& q, const std::vector<float>& k,
                                    const std::vector<float>& v, const std::vector<float>& d_o,
                                    int bh, int s, int d, double scale, bool causal) {
  AttentionReference r;
  std::size_t n = static_cast<std::size_t>(bh) * s * d;
  r.o.assign(n, 0);
  r.dq.assign(n, 0);
  r.dk.assign(n, 0);
  r.dv.assign(n, 0);
  r.lse.assign(static_cast<std::size_t>(bh) * s, 0);
  std::vector<double> p(static_cast<std::size_t>(s) * s), ds(p.size());
  auto at = [d](int head, int s_len, int row, int col) {
    return (static_cast<std::size_t>(head) * s_len + row) * d + col;
  };
  for (int h = 0; h < bh; ++h) {
    for (int i = 0; i < s; ++i) {
      double max_score = -1e300;
      std::vector<double> scores(s, -1e300);
      for (int j = 0; j < s; ++j) {
        if (causal && j > i) continue;
        double dot = 0;
        for (int c = 0; c < d; ++c) dot += double{q[at(h, s, i, c)]} * k[at(h, s, j, c)];
        scores[j] = scale * dot;
        max_score = std::max(max_score, scores[j]);
      }
      double sum = 0;
      for (int j = 0; j < s; ++j) {
        if (!(causal && j > i)) sum += std::exp(scores[j] - max_score);
      }
      double lse = max_score + std::log(sum);
      r.lse[static_cast<std::size_t>(h) * s + i] = lse;
      for (int j = 0; j < s; ++j) {
        p[static_cast<std::size_t>(i) * s + j] =
            (causal && j > i) ? 0.0 : std::exp(scores[j] - lse);
      }
      for (int c = 0; c < d; ++c) {
        double acc = 0;
        for (int j = 0; j < s; ++j)
          acc += p[static_cast<std::size_t>(i) * s + j] * v[at(h, s, j, c)];
        r.o[at(h, s, i, c)] = acc;
      }
    }
    if (d_o.empty()) continue;
    for (int i = 0; i < s; ++i) {
      double delta = 0;
      for (int c = 0; c < d; ++c) delta += double{d_o[at(h, s, i, c)]} * r.o[at(h, s, i, c)];
      for (int j = 0; j < s; ++j) {
        double dp = 0;
        for (int c = 0; c < d; ++c) dp += double{d_o[at(h, s, i, c)]} * v[at(h, s, j, c)];
        ds[static_cast<std::size_t>(i) * s + j] =
            p[static_cast<std::size_t>(i) * s + j] * (dp - delta);
      }
    }
    for (int r_i = 0; r_i < s; ++r_i) {
      for (int c = 0; c < d; ++c) {
        double aq = 0, ak = 0, av = 0;
        for (int t = 0; t < s; ++t) {
          aq += ds[static_cast<std::size_t>(r_i) * s + t] * k[at(h, s, t, c)];
          ak += ds[static_cast<std::size_t>(t) * s + r_i] * q[at(h, s, t, c)];
          av += p[static_cast<std::size_t>(t) * s + r_i] * d_o[at(h, s, t, c)];
        }
        r.dq[at(h, s, r_i, c)] = scale * aq;
        r.dk[at(h, s, r_i, c)] = scale * ak;
        r.dv[at(h, s, r_i, c)] = av;
      }
    }
  }
  return r;
}

double max_abs_difference(const std::vector<float>& x, const std::vector<double>& y) {
  double worst = 0;
  for (std::size_t i = 0; i < std::min(x.size(), y.size()); ++i) {
    worst = std::max(worst, std::fabs(double{x[i]} - y[i]));
  }
  return x.size() == y.size() ? worst : 1e300;
}

}  // namespace ptxbench::eval::gpu::testing
