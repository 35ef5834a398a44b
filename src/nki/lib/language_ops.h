// The nl.* operations that tile operators and assignment share with the nki.language module:
// element-wise math, copies, broadcasts, and writing a value into an existing tensor view.
#pragma once

#include <initializer_list>
#include <memory>
#include <optional>
#include <string_view>

#include "nki/lib/index_expr.h"
#include "nki/lib/nki_tensor.h"
#include "nki/value.h"

namespace nki::lib {

std::optional<tensor::BinaryOp> binop_to_alu(BinOp op);

// nl.add(x, y) and friends: x, y are tiles or scalars (at least one tile). Tile-with-scalar and
// tile-with-partition-vector become a Vector tensor_scalar, tile-with-tile a tensor_tensor.
Value elementwise_binary(Interpreter& in, tensor::BinaryOp op, const Value& x, const Value& y, std::string_view api,
                         const Value& dtype = Value(), std::shared_ptr<const Predicate> mask = nullptr);
// nl.exp(x) and friends: an activation (Scalar Engine) or a simple Vector op.
Value elementwise_unary(Interpreter& in, tensor::UnaryOp op, const Value& x, std::string_view api,
                        const Value& dtype = Value(), std::shared_ptr<const Predicate> mask = nullptr);
// tile.broadcast_to(shape) / nl.broadcast_to: the tile itself when the shape already matches.
Value broadcast_tile(Interpreter& in, const Value& tile, const Value& shape);
// The implicit partition broadcast of the nl.* APIs (3.7): when tiles of one operation have
// different partition counts, each one-partition tile among `operands` is replaced by its
// broadcast_to over the most partitions (a Tensor Engine ones-row matmul, as the compiler
// lowers it); scalars and other tiles are left as they are. Every nl.* API taking several tiles
// calls it, so an operation costs the same whether the author wrote broadcast_to or not.
void spread_over_partitions(Interpreter& in, std::initializer_list<Value*> operands);
// nl.copy(x, dtype=): a Vector copy into a fresh SBUF tile; nisa.tensor_copy(engine=) on the
// engine the kernel names (Vector, Scalar or GpSimd; the compiler's choice when none is given,
// never ScalarE when `scalar_engine_form` is false: the API has no such instruction there).
Value copy_tile(Interpreter& in, const Value& tile, const Value& dtype, std::string_view api,
                std::shared_ptr<const Predicate> mask = nullptr, std::optional<trn::Engine> engine = std::nullopt,
                bool scalar_engine_form = true);

// `dst = value` for an index view `dst` (t[idx] = value): retargets the pending instruction that
// produced `value`, else copies (tile) or fills (scalar).
void assign_into(Interpreter& in, const NkiTensorObj& dst, const Value& value);
// `dst op= value` (t[idx] += v, psum += nl.matmul(...)).
void accumulate_into(Interpreter& in, BinOp op, const NkiTensorObj& dst, const Value& value);

// Throws the refusal of `//` (or `//=`) on tiles: no floor-division instruction exists.
[[noreturn]] void refuse_floor_division_of_tiles(const char* written);

}  // namespace nki::lib
