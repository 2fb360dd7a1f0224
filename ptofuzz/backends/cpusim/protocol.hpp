// ptofuzz's harness around the pto-isa CPU simulator: what its main program (harness.cpp) and its kernel objects
// (kernels.hpp, one object per instruction) share. Written for ptofuzz; it includes nothing of pto-isa.
#ifndef PTOFUZZ_PROTOCOL_HPP
#define PTOFUZZ_PROTOCOL_HPP

#include <cstddef>
#include <cstdint>

namespace ptofuzz {

constexpr uint32_t kMagic = 0x50544f46;  // "PTOF"
constexpr int kRows = 1 << 16;           // static row count of every tile (only the stride matters)
constexpr int kCols[] = {32, 64, 128, 256, 512, 1024, 2048, 4096};
constexpr uint32_t kMaxOps = 80;
constexpr uint32_t kMaxDtypes = 16;

struct Header {
    uint32_t magic, op, dtype, cols_index, rows, n, alias, reserved;
};
struct Reply {
    uint32_t magic, status, n, bytes;
};

// opcodes (ptofuzz.backends.cpusim.build.OPS says the same)
enum Op : uint32_t {
    TPARTADD_OP = 0, TPARTMUL_OP = 1, TPARTMAX_OP = 2, TPARTMIN_OP = 3, TSORT32_OP = 4, TMRGSORT_OP = 5,
    TPARTARGMAX_OP = 6, TPARTARGMIN_OP = 7, TADD_OP = 8, TSUB_OP = 9, TMUL_OP = 10, TMAX_OP = 11, TMIN_OP = 12,
    TABS_OP = 13, TNEG_OP = 14, TRELU_OP = 15, TNOT_OP = 16, TADDS_OP = 17, TSUBS_OP = 18, TMULS_OP = 19,
    TMAXS_OP = 20, TMINS_OP = 21, TLRELU_OP = 22,
    TAND_OP = 23, TOR_OP = 24, TXOR_OP = 25, TSHL_OP = 26, TSHR_OP = 27,                     // bitwise tile-tile
    TANDS_OP = 28, TORS_OP = 29, TXORS_OP = 30, TSHLS_OP = 31, TSHRS_OP = 32,                // bitwise tile-scalar
};

// the generation family (no tile source): opcodes of their own
enum GenerationOp : uint32_t { TEXPANDS_OP = 37, TCI_OP = 38, TTRI_OP = 39 };
// the compare/select family: its own opcodes; its compares' tiles hold kCmpRows static rows (TCmp.h zeroes, and
// TCmps.hpp packs, the whole static tile)
enum CmpSelOp : uint32_t { TCMP_OP = 33, TCMPS_OP = 34, TSEL_OP = 35, TSELS_OP = 36 };
constexpr int kCmpRows = 128;
constexpr bool is_cmpsel(uint32_t op) { return op >= TCMP_OP && op <= TSELS_OP; }

constexpr bool is_arg(uint32_t op) { return op == TPARTARGMAX_OP || op == TPARTARGMIN_OP; }
constexpr bool is_unary(uint32_t op) { return op >= TABS_OP && op <= TNOT_OP; }
constexpr bool is_scalar(uint32_t op)
{
    return (op >= TADDS_OP && op <= TLRELU_OP) || (op >= TANDS_OP && op <= TSHRS_OP);
}
constexpr bool is_generation(uint32_t op) { return op >= TEXPANDS_OP && op <= TTRI_OP; }

// TCVT: an opcode of its own; a request's dtype is the source's, its `alias` the destination's dtype code
enum ConversionOp : uint32_t { TCVT_OP = 40, TDEQUANT_OP = 41 };
constexpr bool is_cvt(uint32_t op) { return op == TCVT_OP; }
// TDEQUANT: A = src (the request's dtype), B = each case's scale tile then its offset tile (float, kParaCols
// columns a row), output = dst (float)
constexpr int kParaCols = 8;
// TQUANT (INT8): A = src (float), B = each case's scale tile then its offset tile (float, kParaCols columns a row),
// output = dst of the request's `alias` dtype code (int8: INT8_SYM, uint8: INT8_ASYM)
enum QuantOp : uint32_t { TQUANT_OP = 42 };
// TQUANT's MX forms (the request's dtype the source's; `alias` kMxBase with the form's bits): no B; per case the
// output holds kMxParts regions of rows x the stride bytes: the element codes (MXFP4: two a byte, stride / 2 a
// row), the E8M0 exponents (ND: rows x max(32, stride / 32); DN: ceil(rows / 32) x stride) and the NZ overload's
// ZZ exponents (rows x stride / 32 bytes, in file order). The tiles hold kMxRows static rows
constexpr uint32_t kMxBase = 16, kMxNv = 1, kMxFp4 = 2, kMxDn = 4, kMxNz = 8;
constexpr int kMxRows = 64, kMxParts = 3;
constexpr bool is_mx_quant(uint32_t op, uint32_t alias) { return op == TQUANT_OP && alias >= kMxBase && alias < 2 * kMxBase; }

// TROWEXPAND / TCOLEXPAND: A = src (at the request's stride, as the unary family's), no B, output = dst
enum ExpandOp : uint32_t { TROWEXPAND_OP = 43, TCOLEXPAND_OP = 44 };
constexpr bool is_expand(uint32_t op) { return op == TROWEXPAND_OP || op == TCOLEXPAND_OP; }
// TROWEXPAND{ADD,SUB,MUL,MAX,MIN}: A = src0, B = src1, output = dst (as TADD's); valid regions dst, src0, src1;
// `alias` bit 0: src0 is the expanded operand (else src1), bit 1: the expanded operand is a ColMajor column whose
// elements lie one after the other from the start of its case's slice (else a RowMajor tile at the stride)
enum ExpandArithOp : uint32_t {
    TROWEXPANDADD_OP = 60, TROWEXPANDSUB_OP = 61, TROWEXPANDMUL_OP = 62, TROWEXPANDMAX_OP = 63, TROWEXPANDMIN_OP = 64,
};
constexpr uint32_t kExpandSwap = 1, kExpandColumn = 2;
constexpr bool is_row_expand_arith(uint32_t op) { return op >= TROWEXPANDADD_OP && op <= TROWEXPANDMIN_OP; }
// TCOLEXPAND{ADD,SUB,MUL,MAX,MIN}: A = src0, B = src1 (both RowMajor at the request's stride, src1's scalars in its
// first row), output = dst (as TADD's); valid regions dst, src0, src1; `alias` unused
enum ColExpandArithOp : uint32_t {
    TCOLEXPANDADD_OP = 65, TCOLEXPANDSUB_OP = 66, TCOLEXPANDMUL_OP = 67, TCOLEXPANDMAX_OP = 68, TCOLEXPANDMIN_OP = 69,
};
constexpr bool is_col_expand_arith(uint32_t op) { return op >= TCOLEXPANDADD_OP && op <= TCOLEXPANDMIN_OP; }
// the ordered reductions (TROWSUM, TCOLSUM): A = src, no B, output = dst (of the element type, at the request's
// stride: TROWSUM's sums in column 0 of each row, TCOLSUM's in row 0); valid regions dst, src (and two unused
// ints); `alias` = TCOLSUM's form: 0 the two-operand one, 1 the four-operand one with isBinary true, 2 with false
enum SumOp : uint32_t { TROWSUM_OP = 48, TCOLSUM_OP = 49 };
constexpr bool is_sum(uint32_t op) { return op == TROWSUM_OP || op == TCOLSUM_OP; }
// the ordered products (TROWPROD, TCOLPROD): laid out as the sums (A = src, no B, output = dst: TROWPROD's
// products in column 0 of each row, TCOLPROD's in row 0); valid regions dst, src; no alias
enum ProdOp : uint32_t { TROWPROD_OP = 70, TCOLPROD_OP = 71 };
constexpr bool is_prod(uint32_t op) { return op == TROWPROD_OP || op == TCOLPROD_OP; }

// TROWMAX / TROWMIN / TCOLMAX / TCOLMIN: A = src (at the request's stride, as the unary family's), no B, output =
// dst (a row reduction writes its first column, a column reduction its first row); valid regions dst, src
enum ReduceOp : uint32_t { TROWMAX_OP = 50, TROWMIN_OP = 51, TCOLMAX_OP = 52, TCOLMIN_OP = 53 };
constexpr bool is_reduce(uint32_t op) { return op >= TROWMAX_OP && op <= TCOLMIN_OP; }
// TROWARGMAX / TROWARGMIN / TCOLARGMAX / TCOLARGMIN: A = src, no B; each case's slice of the output holds the value
// tile (of the element type) then the index tile (uint32, the same rows x cols); valid regions dst (both tiles),
// src; `alias` 1 = the value + index form (else the index form: the value tile is not written). pto-isa's
// cpu/TReduceIdx.hpp holds them, which compilers before P2593 (GCC 12) reject: they compile with clang
enum ArgReduceOp : uint32_t { TROWARGMAX_OP = 54, TROWARGMIN_OP = 55, TCOLARGMAX_OP = 56, TCOLARGMIN_OP = 57 };
constexpr bool is_argreduce(uint32_t op) { return op >= TROWARGMAX_OP && op <= TCOLARGMIN_OP; }

// TPAIRREDUCESUM: A = src (at the request's stride), no B, output = per case dst as a tile of kPairRows static rows
// at the stride (TPairReduceSum.hpp fills the whole static tile with 0 before it writes the sums, so its slice
// must hold every static row); valid regions dst, src (and two unused ints)
enum PairSumOp : uint32_t { TPAIRREDUCESUM_OP = 72 };
constexpr int kPairRows = 128;
constexpr bool is_pairsum(uint32_t op) { return op == TPAIRREDUCESUM_OP; }

// one compiled (instruction, element type): runs a request's n cases at the stride h.cols_index; false when
// the stride is not compiled in
using Kernel = bool (*)(const Header& h, uint8_t* d, uint8_t* a, uint8_t* b, const int32_t* valid, uint8_t* dend);

// called by each kernel object's static initialisers (defined in harness.cpp)
bool add_kernel(uint32_t op, uint32_t dtype, const char* mnemonic, Kernel kernel);

extern volatile int64_t* g_progress;  // the case under way (a crash or a hang names it)
extern int g_plant;  // 1: out-of-bounds write, 2: hang, 3: a deep wrong value (PTOFUZZ_PLANTS builds only)

}  // namespace ptofuzz

#endif
