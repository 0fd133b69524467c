// croktile_sparse.h - host helpers for 2:4 structured-sparse A operands, as the reference
// compiler's programs call them (choreo::utils::SparsePolicy<T> and friends): make a
// random 2:4 sparse M x K matrix, pack it into the M x K/2 kept values and the u32
// metadata words that `mma.row.*.sp` reads (croktile::mma::mma_sp).
//
// Layout (the PTX ISA's ordered metadata, and croktile_mma_warp.h's meta_index):
//   - every group of 4 consecutive elements of a row keeps 2; packed[r][2g + j] is the
//     j-th kept element of group g (j = 0 the lower position);
//   - each group has a 4-bit field: bits 0-1 the position (0..3) of its first kept
//     element, bits 2-3 of its second, the first strictly below the second;
//   - the fields of the META_K / 4 groups of one strip of META_K columns fill the strip's
//     metadata from bit 0 upwards: one MetaT word per strip, or as many words as the bits
//     need (META_K = 64 with u32: the low and the high word, side by side).
// A group with fewer than 2 nonzeros keeps zeros: its nonzero (or position 0) and
// position 3 (0 and 3 where the nonzero is at 3), as sm_90's compressor does; a group with
// more than 2 is not 2:4 sparse and stops the program.
// Included at the end of croktile.h, whose types and choreo_assert it uses.
#pragma once

#include <cstddef>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

namespace croktile {

// A value of any element type as float (the reference's choreo::to_f32).
template <typename T>
inline float to_f32(const T& v) {
  return static_cast<float>(v);
}

namespace utils {

// A float as element type T, rounded to nearest (the reference's choreo::utils::from_f32).
template <typename T>
inline T from_f32(float v) {
  return static_cast<T>(v);
}

template <typename ValueT, typename MetaT, std::size_t META_K>
struct Sparse2to4HostPolicy {
  static_assert(META_K % 4 == 0 && META_K > 0, "META_K must be a positive multiple of 4");
  static constexpr std::size_t groups_per_strip = META_K / 4;
  static constexpr std::size_t word_bits = 8 * sizeof(MetaT);
  // metadata words of one strip: 4 bits a group
  static constexpr std::size_t words_per_strip = (4 * groups_per_strip + word_bits - 1) / word_bits;

  // Zeroes `dense` and sets two random positions of every group of 4 in each row to
  // random nonzero values in [-1, 1].
  static void init_structured_sparse_A(spanned_view<ValueT, 2> dense, std::mt19937& gen) {
    std::uniform_real_distribution<float> value(-1.0f, 1.0f);
    std::uniform_int_distribution<int> position(0, 3);
    fill_groups(dense, [&](ValueT* group) {
      int p0, p1;
      two_positions(position, gen, p0, p1);
      group[p0] = nonzero(value(gen), 1.0f);
      group[p1] = nonzero(value(gen), -1.0f);
    });
  }

  // Like init_structured_sparse_A with every kept value 1: at positions pos0 and pos1 of
  // each group, or at random ones with random_pos.
  static void init_structured_sparse_A_ones(spanned_view<ValueT, 2> dense, std::mt19937& gen,
                                            bool random_pos = false, int pos0 = 0, int pos1 = 1) {
    choreo_assert(pos0 >= 0 && pos0 < 4 && pos1 >= 0 && pos1 < 4 && pos0 != pos1,
                  "croktile::utils sparse init: pos0 and pos1 must be two different positions in 0..3");
    std::uniform_int_distribution<int> position(0, 3);
    fill_groups(dense, [&](ValueT* group) {
      int p0 = pos0, p1 = pos1;
      if (random_pos) two_positions(position, gen, p0, p1);
      group[p0] = group[p1] = from_f32<ValueT>(1.0f);
    });
  }

  // Packs the 2:4 sparse `dense` (M x K) into `packed` (M x K/2) and `meta`
  // (M x K/META_K*words_per_strip); `row_meta`, if given, receives meta's words row-major.
  static void encode(spanned_view<ValueT, 2> dense, spanned_view<ValueT, 2> packed, spanned_view<MetaT, 2> meta,
                     std::vector<MetaT>* row_meta = nullptr) {
    const std::size_t rows = dense.shape()[0], cols = dense.shape()[1];
    const std::size_t strips = cols / META_K, meta_cols = strips * words_per_strip;
    choreo_assert(cols % META_K == 0, "croktile::utils sparse encode: K is not a multiple of META_K");
    choreo_assert(packed.shape()[0] == rows && packed.shape()[1] == cols / 2,
                  "croktile::utils sparse encode: packed must be M x K/2");
    choreo_assert(meta.shape()[0] == rows && meta.shape()[1] == meta_cols,
                  "croktile::utils sparse encode: meta must be M x (K / META_K * words per strip)");
    if (row_meta) row_meta->assign(rows * meta_cols, MetaT(0));
    for (std::size_t r = 0; r < rows; ++r) {
      const ValueT* row = dense.data() + r * cols;
      ValueT* out = packed.data() + r * (cols / 2);
      MetaT* words = meta.data() + r * meta_cols;
      for (std::size_t w = 0; w < meta_cols; ++w) words[w] = MetaT(0);
      for (std::size_t g = 0; g < cols / 4; ++g) {
        int kept[2];
        kept_positions(row + 4 * g, kept);
        out[2 * g] = row[4 * g + kept[0]];
        out[2 * g + 1] = row[4 * g + kept[1]];
        const std::size_t strip = g / groups_per_strip, bit = 4 * (g % groups_per_strip);
        const std::uint64_t field = std::uint64_t(kept[0]) | std::uint64_t(kept[1]) << 2;
        MetaT& word = words[strip * words_per_strip + bit / word_bits];
        word = static_cast<MetaT>(word | static_cast<MetaT>(field << (bit % word_bits)));
      }
      if (row_meta)
        for (std::size_t w = 0; w < meta_cols; ++w) (*row_meta)[r * meta_cols + w] = words[w];
    }
  }

 private:
  template <typename Set>
  static void fill_groups(spanned_view<ValueT, 2> dense, Set set) {
    const std::size_t rows = dense.shape()[0], cols = dense.shape()[1];
    choreo_assert(cols % 4 == 0, "croktile::utils sparse init: K is not a multiple of 4");
    ValueT* p = dense.data();
    for (std::size_t i = 0; i < rows * cols; ++i) p[i] = from_f32<ValueT>(0.0f);
    for (std::size_t r = 0; r < rows; ++r)
      for (std::size_t g = 0; g < cols / 4; ++g) set(p + r * cols + 4 * g);
  }

  // Two different positions, the lower first.
  static void two_positions(std::uniform_int_distribution<int>& position, std::mt19937& gen, int& p0, int& p1) {
    p0 = position(gen);
    do p1 = position(gen);
    while (p1 == p0);
    if (p0 > p1) std::swap(p0, p1);
  }

  // v as ValueT, or `otherwise` where it rounds to zero.
  static ValueT nonzero(float v, float otherwise) {
    const ValueT t = from_f32<ValueT>(v);
    return to_f32(t) != 0.0f ? t : from_f32<ValueT>(otherwise);
  }

  static void kept_positions(const ValueT* group, int kept[2]) {
    int count = 0;
    for (int i = 0; i < 4; ++i)
      if (to_f32(group[i]) != 0.0f) {
        choreo_assert(count < 2, "croktile::utils sparse encode: a group of 4 has more than 2 nonzeros (not 2:4 sparse)");
        kept[count++] = i;
      }
    if (count == 0) kept[0] = 0;
    if (count < 2) {
      if (kept[0] == 3) kept[0] = 0;
      kept[1] = 3;
    }
  }
};

// The metadata strip of a value type: 16 columns for 16-bit values (one instruction of
// m16n8k16), 64 for the 8-bit floats (m16n8k64, two u32 words).
template <typename ValueT, typename MetaT>
struct SparseMetaK {
  static constexpr std::size_t value = 16;
};
template <typename MetaT>
struct SparseMetaK<f8_e4m3, MetaT> {
  static constexpr std::size_t value = 64;
};
template <typename MetaT>
struct SparseMetaK<f8_e5m2, MetaT> {
  static constexpr std::size_t value = 64;
};

template <typename ValueT, typename MetaT>
using SparseHostPolicy = Sparse2to4HostPolicy<ValueT, MetaT, SparseMetaK<ValueT, MetaT>::value>;
template <typename ValueT, typename MetaT = u32>
using SparsePolicy = SparseHostPolicy<ValueT, MetaT>;
template <typename ValueT, typename MetaT = u32>
using SparsePolicyK16 = Sparse2to4HostPolicy<ValueT, MetaT, 16>;
template <typename ValueT, typename MetaT = u32>
using SparsePolicyK32 = Sparse2to4HostPolicy<ValueT, MetaT, 32>;

}  // namespace utils
}  // namespace croktile
