// DeviceTensor::view: a tensor over memory someone else owns (PyTorch's, in the interleaved
// baseline benchmark). The memory is never touched here, so no GPU is needed: only the view's
// bookkeeping is checked.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <stdexcept>
#include <utility>

#include "ptxbench/eval/worker/gpu/device_tensors.hpp"

namespace ptxbench::eval::gpu {
namespace {

worker::TensorDesc matrix(std::int64_t rows, std::int64_t cols) {
  return worker::TensorDesc{.name = "A", .dtype = task::DType::kBFloat16, .shape = {rows, cols}};
}

TEST(DeviceTensorView, PointsAtTheBorrowedMemoryWithTheDescribedShape) {
  std::array<std::uint16_t, 12> storage{};
  DeviceTensor view = DeviceTensor::view(matrix(3, 4), storage.data());
  EXPECT_TRUE(view.is_view());
  EXPECT_EQ(view.data(), storage.data());
  EXPECT_EQ(view.bytes(), 24u);
  EXPECT_EQ(view.elements(), 12);
  EXPECT_EQ(view.desc().name, "A");
  DLTensor* dl = view.dl();
  EXPECT_EQ(dl->data, storage.data());
  ASSERT_EQ(dl->ndim, 2);
  EXPECT_EQ(dl->shape[0], 3);
  EXPECT_EQ(dl->shape[1], 4);
  EXPECT_EQ(dl->dtype.code, kDLBfloat);
  EXPECT_EQ(dl->dtype.bits, 16);
  EXPECT_EQ(dl->strides, nullptr);
}

TEST(DeviceTensorView, MovingCarriesTheBorrowedPointer) {
  std::array<std::uint16_t, 6> first{}, second{};
  DeviceTensor a = DeviceTensor::view(matrix(2, 3), first.data());
  DeviceTensor b(std::move(a));
  EXPECT_TRUE(b.is_view());
  EXPECT_EQ(b.data(), first.data());
  EXPECT_EQ(b.dl()->data, first.data());
  EXPECT_EQ(b.dl()->shape[1], 3);

  DeviceTensor c = DeviceTensor::view(matrix(3, 2), second.data());
  b = std::move(c);
  EXPECT_EQ(b.data(), second.data());
  EXPECT_EQ(b.dl()->data, second.data());
  EXPECT_EQ(b.dl()->shape[0], 3);
  EXPECT_EQ(b.bytes(), 12u);
}

TEST(DeviceTensorView, AnOwningTensorIsNotAView) {
  DeviceTensor owning(matrix(0, 4), DeviceBuffer());
  EXPECT_FALSE(owning.is_view());
  EXPECT_EQ(owning.data(), nullptr);
  EXPECT_EQ(owning.bytes(), 0u);
}

TEST(DeviceTensorView, RefusesANullPointerForNonEmptyTensors) {
  EXPECT_THROW(DeviceTensor::view(matrix(2, 2), nullptr), std::exception);
  EXPECT_NO_THROW(DeviceTensor::view(matrix(0, 2), nullptr));
}

}  // namespace
}  // namespace ptxbench::eval::gpu
