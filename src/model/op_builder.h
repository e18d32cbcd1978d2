// Internal: appends operators with their FLOP and byte formulas (docs/model.md). Every
// operator takes the builder's current kind (set_kind); each method returns the operator it
// appended (valid until the next append) so a caller can mark it row-parallel.
#pragma once

#include <string>
#include <vector>

#include "lightsim/model/cost.h"

namespace lightsim::model::detail {

class OpBuilder {
 public:
  OpBuilder(std::vector<Operator>& out, double act_bytes, double weight_bytes)
      : out_(out), a_(act_bytes), w_(weight_bytes) {}

  double act() const { return a_; }
  double weight() const { return w_; }
  // The kind of the operators appended from now on (cost.h, OpKind).
  void set_kind(OpKind kind) { kind_ = kind; }

  // Y[m x n] = X[m x k] W[k x n]; `weight_rows_read` scales the weights actually read (for
  // grouped expert GEMMs only the touched experts' weights are read).
  Operator& matmul(std::string name, std::string output, double m, double k, double n,
                   double weight_copies = 1.0, double in_bytes = -1.0) {
    Operator op{std::move(name), std::move(output), OpClass::matmul};
    op.flops = 2.0 * m * k * n;
    op.m = m;
    op.k = k;
    op.n = n;
    op.weight_bytes = weight_copies * k * n * w_;
    op.bytes_read = m * k * (in_bytes < 0 ? a_ : in_bytes) + op.weight_bytes;
    op.bytes_written = m * n * a_;
    return append(std::move(op));
  }
  // RMSNorm over `rows` vectors of `width`: square, sum, rsqrt-scale, weight: 4 FLOPs/value.
  Operator& rms_norm(std::string name, std::string output, double rows, double width) {
    Operator op{std::move(name), std::move(output), OpClass::elementwise};
    op.flops = 4.0 * rows * width;
    op.weight_bytes = width * w_;
    op.bytes_read = rows * width * a_ + op.weight_bytes;
    op.bytes_written = rows * width * a_;
    return append(std::move(op));
  }
  // An elementwise map reading `inputs` tensors of `values` and writing one.
  Operator& elementwise(std::string name, std::string output, double values, double flops_per_value,
                        double inputs = 1.0, double written = -1.0) {
    Operator op{std::move(name), std::move(output), OpClass::elementwise};
    op.flops = flops_per_value * values;
    op.bytes_read = inputs * values * a_;
    op.bytes_written = (written < 0 ? values : written) * a_;
    return append(std::move(op));
  }
  Operator& data_movement(std::string name, std::string output, double bytes_read,
                          double bytes_written) {
    Operator op{std::move(name), std::move(output), OpClass::data_movement};
    op.bytes_read = bytes_read;
    op.bytes_written = bytes_written;
    return append(std::move(op));
  }
  Operator& attention(std::string name, std::string output, double flops, double bytes_read,
                      double bytes_written) {
    Operator op{std::move(name), std::move(output), OpClass::attention};
    op.flops = flops;
    op.bytes_read = bytes_read;
    op.bytes_written = bytes_written;
    return append(std::move(op));
  }

 private:
  Operator& append(Operator op) {
    op.kind = kind_;
    out_.push_back(std::move(op));
    return out_.back();
  }

  std::vector<Operator>& out_;
  double a_, w_;
  OpKind kind_ = OpKind::other;
};

}  // namespace lightsim::model::detail
