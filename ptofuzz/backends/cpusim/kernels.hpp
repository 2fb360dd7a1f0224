// ptofuzz's kernels around the pto-isa CPU simulator (written for ptofuzz; it only #includes pto-isa's public
// headers from the tree given at build time). ptofuzz.backends.cpusim.build compiles one object per instruction:
// a file holding this header and one PTOFUZZ_KERNEL(OPCODE, MNEMONIC, CTYPE, DTYPECODE) line per element type,
// each line registering that pair with the main program (harness.cpp, which says what the buffers hold).
//
// Build defines: PTOFUZZ_PLANTS (test-only): with the environment variable PTOFUZZ_PLANT=oob, a TPART* case
// whose src0 starts with the byte 0x5A writes one byte past the dst buffer; with PTOFUZZ_PLANT=hang it loops
// forever (harness.cpp reads the variable into g_plant); with PTOFUZZ_PLANT=deep, a 32-bit TMRGSORT case whose
// first list starts with the score bits kDeepPlant (about 2.8e38 as a float: drawn anywhere in a list, it sorts
// first) and whose destination has a valid element comes back with the lowest bit of its first output byte
// flipped: a wrong value behind one 32-bit compare with a constant, which libFuzzer's comparison tracing of the
// simulator (native coverage) hands to the mutator, and which blind drawing meets once in 2^32 lists.
#ifndef PTOFUZZ_KERNELS_HPP
#define PTOFUZZ_KERNELS_HPP

#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include <pto/pto-inst.hpp>

#include "protocol.hpp"

namespace ptofuzz {

constexpr uint32_t kDeepPlant = 0x7F4F5450;  // PTOFUZZ_PLANT=deep's score bits (bytes 50 54 4F 7F)

template <typename T, int C, int Lists, bool Exhausted>
void mrgsort_lists(T* d, T* const* src, const int32_t* v, uint16_t* executed)
{
    using Row = pto::Tile<pto::TileType::Vec, T, 1, C, pto::BLayout::RowMajor, -1, -1>;
    static T tmp_buf[C];
    Row dt(1, v[0]), tt(1, C), s0(1, v[1]), s1(1, v[2]), s2(1, v[3]), s3(1, v[4]);
    dt.data() = d;
    tt.data() = tmp_buf;
    s0.data() = src[0];
    s1.data() = src[1];
    s2.data() = src[2];
    s3.data() = src[3];
    pto::MrgSortExecutedNumList counts{};
    if constexpr (Lists == 2) {
        pto::TMRGSORT<Row, Row, Row, Row, Exhausted>(dt, counts, tt, s0, s1);
    } else if constexpr (Lists == 3) {
        pto::TMRGSORT<Row, Row, Row, Row, Row, Exhausted>(dt, counts, tt, s0, s1, s2);
    } else {
        pto::TMRGSORT<Row, Row, Row, Row, Row, Row, Exhausted>(dt, counts, tt, s0, s1, s2, s3);
    }
    executed[0] = counts.mrgSortList0;
    executed[1] = counts.mrgSortList1;
    executed[2] = counts.mrgSortList2;
    executed[3] = counts.mrgSortList3;
}

template <typename T, int C>
void run_tmrgsort(uint8_t* dbuf, uint8_t* abuf, const int32_t* valid, uint32_t n, uint32_t mode)
{
    using Row = pto::Tile<pto::TileType::Vec, T, 1, C, pto::BLayout::RowMajor, -1, -1>;
    const size_t out_bytes = C * sizeof(T) + 8;
    for (uint32_t k = 0; k < n; k++) {
        *g_progress = k;
        const int32_t* v = valid + 6 * k;
        T* d = reinterpret_cast<T*>(dbuf + k * out_bytes);
        uint16_t executed[4] = {0, 0, 0, 0};
        T* src[4];
        for (int i = 0; i < 4; i++) src[i] = reinterpret_cast<T*>(abuf) + (size_t(k) * 4 + i) * C;
        const uint32_t lists = mode & 7;
        const bool exhausted = (mode & 8) != 0;
        if (lists == 1) {
            Row dt(1, v[0]), st(1, v[1]);
            dt.data() = d;
            st.data() = src[0];
            pto::TMRGSORT(dt, st, uint32_t(v[5]));
        } else if (lists == 2) {
            exhausted ? mrgsort_lists<T, C, 2, true>(d, src, v, executed) : mrgsort_lists<T, C, 2, false>(d, src, v, executed);
        } else if (lists == 3) {
            exhausted ? mrgsort_lists<T, C, 3, true>(d, src, v, executed) : mrgsort_lists<T, C, 3, false>(d, src, v, executed);
        } else {
            exhausted ? mrgsort_lists<T, C, 4, true>(d, src, v, executed) : mrgsort_lists<T, C, 4, false>(d, src, v, executed);
        }
        std::memcpy(dbuf + k * out_bytes + C * sizeof(T), executed, 8);
#ifdef PTOFUZZ_PLANTS
        if constexpr (sizeof(T) == 4) {
            uint32_t head;  // the first list's first score, as bits
            std::memcpy(&head, src[0], 4);
            if (g_plant == 3 && v[0] > 0 && v[1] > 0 && head == kDeepPlant) reinterpret_cast<uint8_t*>(d)[0] ^= 1;
        }
#endif
    }
}

template <typename T, int C>
void run_tsort32(uint8_t* dbuf, uint8_t* abuf, uint8_t* bbuf, const int32_t* valid, uint32_t rows, uint32_t n)
{
    constexpr int DC = C * 8 / int(sizeof(T));
    using SrcT = pto::Tile<pto::TileType::Vec, T, kRows, C, pto::BLayout::RowMajor, -1, -1>;
    using IdxT = pto::Tile<pto::TileType::Vec, uint32_t, kRows, C, pto::BLayout::RowMajor, -1, -1>;
    using DstT = pto::Tile<pto::TileType::Vec, T, kRows, DC, pto::BLayout::RowMajor, -1, -1>;
    const size_t tile = size_t(rows) * C;
    for (uint32_t k = 0; k < n; k++) {
        *g_progress = k;
        const int32_t* v = valid + 6 * k;
        DstT dt(v[0], v[1]);
        SrcT st(v[2], v[3]);
        IdxT it(v[4], v[5]);
        dt.data() = reinterpret_cast<T*>(dbuf) + k * size_t(rows) * DC;
        st.data() = reinterpret_cast<T*>(abuf) + k * tile;
        it.data() = reinterpret_cast<uint32_t*>(bbuf) + k * tile;
        pto::TSORT32(dt, st, it);
    }
}

template <uint32_t OpCode, typename T, int C>
void run_tpart(uint8_t* dbuf, uint8_t* abuf, uint8_t* bbuf, const int32_t* valid, uint32_t rows, uint32_t n,
               uint32_t alias, uint8_t* dend)
{
    using TileT = pto::Tile<pto::TileType::Vec, T, kRows, C, pto::BLayout::RowMajor, -1, -1>;
    const size_t tile = size_t(rows) * C;
    for (uint32_t k = 0; k < n; k++) {
        *g_progress = k;
        const int32_t* v = valid + 6 * k;
        T* d = reinterpret_cast<T*>(dbuf) + k * tile;
        T* a = reinterpret_cast<T*>(abuf) + k * tile;
        T* b = reinterpret_cast<T*>(bbuf) + k * tile;
        if (alias == 1) {
            std::memcpy(d, a, tile * sizeof(T));
            a = d;
        } else if (alias == 2) {
            std::memcpy(d, b, tile * sizeof(T));
            b = d;
        }
#ifdef PTOFUZZ_PLANTS
        if ((g_plant == 1 || g_plant == 2) && reinterpret_cast<uint8_t*>(a)[0] == 0x5A) {  // oob, hang
            if (g_plant == 1) {
                *reinterpret_cast<volatile uint8_t*>(dend) = 1;
            } else {
                for (volatile unsigned spin = 0;; spin = spin + 1u) {  // unsigned: no UB for UBSan to stop
                }
            }
        }
#endif
        (void)dend;
        TileT dt(v[0], v[1]), at(v[2], v[3]), bt(v[4], v[5]);
        dt.data() = d;
        at.data() = a;
        bt.data() = b;
        if constexpr (OpCode == TPARTADD_OP) {
            pto::TPARTADD(dt, at, bt);
        } else if constexpr (OpCode == TPARTMUL_OP) {
            pto::TPARTMUL(dt, at, bt);
        } else if constexpr (OpCode == TPARTMAX_OP) {
            pto::TPARTMAX(dt, at, bt);
        } else if constexpr (OpCode == TPARTMIN_OP) {
            pto::TPARTMIN(dt, at, bt);
        } else if constexpr (OpCode == TADD_OP) {
            pto::TADD(dt, at, bt);
        } else if constexpr (OpCode == TSUB_OP) {
            pto::TSUB(dt, at, bt);
        } else if constexpr (OpCode == TMUL_OP) {
            pto::TMUL(dt, at, bt);
        } else if constexpr (OpCode == TMAX_OP) {
            pto::TMAX(dt, at, bt);
        } else if constexpr (OpCode == TAND_OP) {
            pto::TAND(dt, at, bt);
        } else if constexpr (OpCode == TOR_OP) {
            pto::TOR(dt, at, bt);
        } else if constexpr (OpCode == TXOR_OP) {
            pto::TXOR(dt, at, bt, dt);  // tmp: the simulator ignores it (A5's test passes dst too)
        } else if constexpr (OpCode == TSHL_OP) {
            pto::TSHL(dt, at, bt);
        } else if constexpr (OpCode == TSHR_OP) {
            pto::TSHR(dt, at, bt);
        } else {
            static_assert(OpCode == TMIN_OP, "an opcode without a kernel");
            pto::TMIN(dt, at, bt);
        }
    }
}

template <uint32_t OpCode, typename T, int C>
void run_tpartarg(uint8_t* dbuf, uint8_t* abuf, uint8_t* bbuf, const int32_t* valid, uint32_t rows, uint32_t n)
{
    using ValT = pto::Tile<pto::TileType::Vec, T, kRows, C, pto::BLayout::RowMajor, -1, -1>;
    using IdxT = pto::Tile<pto::TileType::Vec, uint32_t, kRows, C, pto::BLayout::RowMajor, -1, -1>;
    const size_t tile = size_t(rows) * C;
    const size_t slice = tile * (sizeof(T) + 4);  // value tile, then index tile (tile * sizeof(T) keeps 4-byte alignment)
    for (uint32_t k = 0; k < n; k++) {
        *g_progress = k;
        const int32_t* v = valid + 6 * k;
        uint8_t* d = dbuf + k * slice;
        uint8_t* a = abuf + k * slice;
        uint8_t* b = bbuf + k * slice;
        ValT dt(v[0], v[1]), at(v[2], v[3]), bt(v[4], v[5]);
        IdxT di(v[0], v[1]), ai(v[2], v[3]), bi(v[4], v[5]);
        dt.data() = reinterpret_cast<T*>(d);
        at.data() = reinterpret_cast<T*>(a);
        bt.data() = reinterpret_cast<T*>(b);
        di.data() = reinterpret_cast<uint32_t*>(d + tile * sizeof(T));
        ai.data() = reinterpret_cast<uint32_t*>(a + tile * sizeof(T));
        bi.data() = reinterpret_cast<uint32_t*>(b + tile * sizeof(T));
        if constexpr (OpCode == TPARTARGMAX_OP) {
            pto::TPARTARGMAX(dt, at, bt, di, ai, bi);
        } else {
            pto::TPARTARGMIN(dt, at, bt, di, ai, bi);
        }
    }
}

template <uint32_t OpCode, typename T, int C>
void run_unary(uint8_t* dbuf, uint8_t* abuf, const int32_t* valid, uint32_t rows, uint32_t n, uint32_t alias)
{
    using TileT = pto::Tile<pto::TileType::Vec, T, kRows, C, pto::BLayout::RowMajor, -1, -1>;
    const size_t tile = size_t(rows) * C;
    for (uint32_t k = 0; k < n; k++) {
        *g_progress = k;
        const int32_t* v = valid + 6 * k;
        T* d = reinterpret_cast<T*>(dbuf) + k * tile;
        T* a = reinterpret_cast<T*>(abuf) + k * tile;
        if (alias == 1) {
            std::memcpy(d, a, tile * sizeof(T));
            a = d;
        }
        TileT dt(v[0], v[1]), st(v[2], v[3]);
        dt.data() = d;
        st.data() = a;
        if constexpr (OpCode == TABS_OP) {
            pto::TABS(dt, st);
        } else if constexpr (OpCode == TNEG_OP) {
            pto::TNEG(dt, st);
        } else if constexpr (OpCode == TRELU_OP) {
            pto::TRELU(dt, st);
        } else {
            static_assert(OpCode == TNOT_OP, "an opcode without a kernel");
            pto::TNOT(dt, st);
        }
    }
}

// Per case k of a request: the destination and the source, tiles of T at the stride C over the case's slices of
// dbuf and abuf with the valid regions v[0], v[1] and v[2], v[3]; f(dst, src, v) runs the instruction
template <typename T, int C, typename F>
void each_dst_src(uint8_t* dbuf, uint8_t* abuf, const int32_t* valid, uint32_t rows, uint32_t n, F&& f)
{
    using TileT = pto::Tile<pto::TileType::Vec, T, kRows, C, pto::BLayout::RowMajor, -1, -1>;
    const size_t tile = size_t(rows) * C;
    for (uint32_t k = 0; k < n; k++) {
        *g_progress = k;
        const int32_t* v = valid + 6 * k;
        TileT dt(v[0], v[1]), st(v[2], v[3]);
        dt.data() = reinterpret_cast<T*>(dbuf) + k * tile;
        st.data() = reinterpret_cast<T*>(abuf) + k * tile;
        f(dt, st, v);
    }
}

// TROWEXPAND / TCOLEXPAND: the six ints are dst's valid rows and columns, then src's
template <uint32_t OpCode, typename T, int C>
void run_expand(uint8_t* dbuf, uint8_t* abuf, const int32_t* valid, uint32_t rows, uint32_t n)
{
    each_dst_src<T, C>(dbuf, abuf, valid, rows, n, [](auto& dt, auto& st, const int32_t*) {
        if constexpr (OpCode == TROWEXPAND_OP) {
            pto::TROWEXPAND(dt, st);
        } else {
            static_assert(OpCode == TCOLEXPAND_OP, "an opcode without a kernel");
            pto::TCOLEXPAND(dt, st);
        }
    });
}

// TROWEXPAND{ADD,SUB,MUL,MAX,MIN} (protocol.hpp says what `alias` holds)
template <uint32_t OpCode, typename Dst, typename S0, typename S1>
void row_expand_arith(Dst& dt, S0& s0, S1& s1)
{
    if constexpr (OpCode == TROWEXPANDADD_OP) {
        pto::TROWEXPANDADD(dt, s0, s1);
    } else if constexpr (OpCode == TROWEXPANDSUB_OP) {
        pto::TROWEXPANDSUB(dt, s0, s1);
    } else if constexpr (OpCode == TROWEXPANDMUL_OP) {
        pto::TROWEXPANDMUL(dt, s0, s1);
    } else if constexpr (OpCode == TROWEXPANDMAX_OP) {
        pto::TROWEXPANDMAX(dt, s0, s1);
    } else {
        static_assert(OpCode == TROWEXPANDMIN_OP, "an opcode without a kernel");
        pto::TROWEXPANDMIN(dt, s0, s1);
    }
}

template <uint32_t OpCode, typename T, int C>
void run_row_expand_arith(uint8_t* dbuf, uint8_t* abuf, uint8_t* bbuf, const int32_t* valid, uint32_t rows,
                          uint32_t n, uint32_t alias)
{
    using TileT = pto::Tile<pto::TileType::Vec, T, kRows, C, pto::BLayout::RowMajor, -1, -1>;
    using ColT = pto::Tile<pto::TileType::Vec, T, kRows, 1, pto::BLayout::ColMajor, -1, -1>;
    const size_t tile = size_t(rows) * C;
    for (uint32_t k = 0; k < n; k++) {
        *g_progress = k;
        const int32_t* v = valid + 6 * k;
        T* d = reinterpret_cast<T*>(dbuf) + k * tile;
        T* a = reinterpret_cast<T*>(abuf) + k * tile;
        T* b = reinterpret_cast<T*>(bbuf) + k * tile;
        TileT dt(v[0], v[1]);
        dt.data() = d;
        const bool swap = (alias & kExpandSwap) != 0;
        if (alias & kExpandColumn) {
            ColT ct(swap ? v[2] : v[4], swap ? v[3] : v[5]);
            TileT ft(swap ? v[4] : v[2], swap ? v[5] : v[3]);
            ct.data() = swap ? a : b;
            ft.data() = swap ? b : a;
            swap ? row_expand_arith<OpCode>(dt, ct, ft) : row_expand_arith<OpCode>(dt, ft, ct);
        } else {
            TileT at(v[2], v[3]), bt(v[4], v[5]);
            at.data() = a;
            bt.data() = b;
            row_expand_arith<OpCode>(dt, at, bt);
        }
    }
}

// TCOLEXPAND{ADD,SUB,MUL,MAX,MIN}: dst, src0 and src1 RowMajor tiles at one stride (TColExpandOp.hpp:38-40
// wants RowMajor), each with its own valid region (the six ints); src1's scalars are its first row
template <uint32_t OpCode, typename T, int C>
void run_col_expand_arith(uint8_t* dbuf, uint8_t* abuf, uint8_t* bbuf, const int32_t* valid, uint32_t rows,
                          uint32_t n)
{
    using TileT = pto::Tile<pto::TileType::Vec, T, kRows, C, pto::BLayout::RowMajor, -1, -1>;
    const size_t tile = size_t(rows) * C;
    for (uint32_t k = 0; k < n; k++) {
        *g_progress = k;
        const int32_t* v = valid + 6 * k;
        TileT dt(v[0], v[1]), at(v[2], v[3]), bt(v[4], v[5]);
        dt.data() = reinterpret_cast<T*>(dbuf) + k * tile;
        at.data() = reinterpret_cast<T*>(abuf) + k * tile;
        bt.data() = reinterpret_cast<T*>(bbuf) + k * tile;
        if constexpr (OpCode == TCOLEXPANDADD_OP) {
            pto::TCOLEXPANDADD(dt, at, bt);
        } else if constexpr (OpCode == TCOLEXPANDSUB_OP) {
            pto::TCOLEXPANDSUB(dt, at, bt);
        } else if constexpr (OpCode == TCOLEXPANDMUL_OP) {
            pto::TCOLEXPANDMUL(dt, at, bt);
        } else if constexpr (OpCode == TCOLEXPANDMAX_OP) {
            pto::TCOLEXPANDMAX(dt, at, bt);
        } else {
            static_assert(OpCode == TCOLEXPANDMIN_OP, "an opcode without a kernel");
            pto::TCOLEXPANDMIN(dt, at, bt);
        }
    }
}

// TROWMAX / TROWMIN / TCOLMAX / TCOLMIN: the six ints are dst's valid rows and columns, then src's; dst and src
// at one stride (TColMax.hpp's CheckCMValid wants equal static columns). The row reductions' tmp tile is unused
// by the simulator (the cpu system test passes src)
template <uint32_t OpCode, typename T, int C>
void run_reduce(uint8_t* dbuf, uint8_t* abuf, const int32_t* valid, uint32_t rows, uint32_t n)
{
    each_dst_src<T, C>(dbuf, abuf, valid, rows, n, [](auto& dt, auto& st, const int32_t*) {
        if constexpr (OpCode == TROWMAX_OP) {
            pto::TROWMAX(dt, st, st);
        } else if constexpr (OpCode == TROWMIN_OP) {
            pto::TROWMIN(dt, st, st);
        } else if constexpr (OpCode == TCOLMAX_OP) {
            pto::TCOLMAX(dt, st);
        } else {
            static_assert(OpCode == TCOLMIN_OP, "an opcode without a kernel");
            pto::TCOLMIN(dt, st);
        }
    });
}

// TROWARGMAX / TROWARGMIN / TCOLARGMAX / TCOLARGMIN: per case the value tile then the uint32 index tile (each
// rows x C) in the output; the six ints are the destinations' valid region, then src's; alias 1: the value + index
// form (4 arguments). The tmp tile is unused by the simulator (TReduceIdx.hpp:202 and the like): src is passed
template <uint32_t OpCode, typename T, int C>
void run_argreduce(uint8_t* dbuf, uint8_t* abuf, const int32_t* valid, uint32_t rows, uint32_t n, uint32_t alias)
{
    using ValT = pto::Tile<pto::TileType::Vec, T, kRows, C, pto::BLayout::RowMajor, -1, -1>;
    using IdxT = pto::Tile<pto::TileType::Vec, uint32_t, kRows, C, pto::BLayout::RowMajor, -1, -1>;
    const size_t tile = size_t(rows) * C;
    const size_t slice = tile * (sizeof(T) + 4);
    for (uint32_t k = 0; k < n; k++) {
        *g_progress = k;
        const int32_t* v = valid + 6 * k;
        ValT dv(v[0], v[1]), st(v[2], v[3]);
        IdxT di(v[0], v[1]);
        dv.data() = reinterpret_cast<T*>(dbuf + k * slice);
        di.data() = reinterpret_cast<uint32_t*>(dbuf + k * slice + tile * sizeof(T));
        st.data() = reinterpret_cast<T*>(abuf) + k * tile;
        if constexpr (OpCode == TROWARGMAX_OP) {
            alias == 1 ? (void)pto::TROWARGMAX(dv, di, st, st) : (void)pto::TROWARGMAX(di, st, st);
        } else if constexpr (OpCode == TROWARGMIN_OP) {
            alias == 1 ? (void)pto::TROWARGMIN(dv, di, st, st) : (void)pto::TROWARGMIN(di, st, st);
        } else if constexpr (OpCode == TCOLARGMAX_OP) {
            alias == 1 ? (void)pto::TCOLARGMAX(dv, di, st, st) : (void)pto::TCOLARGMAX(di, st, st);
        } else {
            static_assert(OpCode == TCOLARGMIN_OP, "an opcode without a kernel");
            alias == 1 ? (void)pto::TCOLARGMIN(dv, di, st, st) : (void)pto::TCOLARGMIN(di, st, st);
        }
    }
}

template <uint32_t OpCode, typename T, int C>
void run_scalar(uint8_t* dbuf, uint8_t* abuf, uint8_t* bbuf, const int32_t* valid, uint32_t rows, uint32_t n)
{
    using TileT = pto::Tile<pto::TileType::Vec, T, kRows, C, pto::BLayout::RowMajor, -1, -1>;
    const size_t tile = size_t(rows) * C;
    for (uint32_t k = 0; k < n; k++) {
        *g_progress = k;
        const int32_t* v = valid + 6 * k;
        T scalar;
        std::memcpy(&scalar, bbuf + k * tile * sizeof(T), sizeof(T));
        TileT dt(v[0], v[1]), st(v[2], v[3]);
        dt.data() = reinterpret_cast<T*>(dbuf) + k * tile;
        st.data() = reinterpret_cast<T*>(abuf) + k * tile;
        if constexpr (OpCode == TADDS_OP) {
            pto::TADDS(dt, st, scalar);
        } else if constexpr (OpCode == TSUBS_OP) {
            pto::TSUBS(dt, st, scalar);
        } else if constexpr (OpCode == TMULS_OP) {
            pto::TMULS(dt, st, scalar);
        } else if constexpr (OpCode == TMAXS_OP) {
            pto::TMAXS(dt, st, scalar);
        } else if constexpr (OpCode == TMINS_OP) {
            pto::TMINS(dt, st, scalar);
        } else if constexpr (OpCode == TANDS_OP) {
            pto::TANDS(dt, st, scalar);
        } else if constexpr (OpCode == TORS_OP) {
            pto::TORS(dt, st, scalar);
        } else if constexpr (OpCode == TXORS_OP) {
            pto::TXORS(dt, st, scalar, dt);  // tmp: the simulator ignores it
        } else if constexpr (OpCode == TSHLS_OP) {
            pto::TSHLS(dt, st, scalar);
        } else if constexpr (OpCode == TSHRS_OP) {
            pto::TSHRS(dt, st, scalar);
        } else {
            static_assert(OpCode == TLRELU_OP, "an opcode without a kernel");
            pto::TLRELU(dt, st, scalar);
        }
    }
}

// TEXPANDS, TCI, TTRI: no source tile. TEXPANDS's scalar is the first element of each case's A slice; the six
// ints are dst's valid rows and columns, then TCI's start (its low bytes are the element's bits) and direction,
// or TTRI's diagonal and orientation. TCI's tile has the one static row its header requires.
template <uint32_t OpCode, typename T, int C>
void run_generation(uint8_t* dbuf, uint8_t* abuf, const int32_t* valid, uint32_t rows, uint32_t n)
{
    using TileT = pto::Tile<pto::TileType::Vec, T, kRows, C, pto::BLayout::RowMajor, -1, -1>;
    using RowT = pto::Tile<pto::TileType::Vec, T, 1, C, pto::BLayout::RowMajor, -1, -1>;
    const size_t tile = size_t(rows) * C;
    for (uint32_t k = 0; k < n; k++) {
        *g_progress = k;
        const int32_t* v = valid + 6 * k;
        T* d = reinterpret_cast<T*>(dbuf) + k * tile;
        if constexpr (OpCode == TEXPANDS_OP) {
            T scalar;
            std::memcpy(&scalar, abuf + k * tile * sizeof(T), sizeof(T));
            TileT dt(v[0], v[1]);
            dt.data() = d;
            pto::TEXPANDS(dt, scalar);
        } else if constexpr (OpCode == TCI_OP) {
            T start;
            std::memcpy(&start, &v[2], sizeof(T));
            RowT dt(v[0], v[1]);
            dt.data() = d;
            if (v[3]) {
                pto::TCI<RowT, T, 1>(dt, start);
            } else {
                pto::TCI<RowT, T, 0>(dt, start);
            }
        } else {
            static_assert(OpCode == TTRI_OP, "an opcode without a kernel");
            TileT dt(v[0], v[1]);
            dt.data() = d;
            if (v[3]) {
                pto::TTRI<TileT, 1>(dt, v[2]);
            } else {
                pto::TTRI<TileT, 0>(dt, v[2]);
            }
        }
    }
}

// TCMP / TCMPS / TSEL / TSELS (harness.cpp says what the buffers hold). The mask and destination words of a case
// lie at the request's stride C too (C words a row), the compares' destination kCmpRows rows.
template <typename T>
constexpr bool u8_mask_compare()
{
    return std::is_same_v<T, int32_t> || std::is_same_v<T, half> || std::is_same_v<T, float>;
}

template <typename T, typename W, int C>
void run_tsels_words(uint8_t* dbuf, uint8_t* abuf, uint8_t* bbuf, const int32_t* valid, uint32_t rows, uint32_t n)
{
    using TileT = pto::Tile<pto::TileType::Vec, T, kRows, C, pto::BLayout::RowMajor, -1, -1>;
    using MaskT = pto::Tile<pto::TileType::Vec, W, kRows, C, pto::BLayout::RowMajor, -1, -1>;
    using TmpT = pto::Tile<pto::TileType::Vec, T, 1, 32 / sizeof(T), pto::BLayout::RowMajor, -1, -1>;
    static T tmp_buf[32 / sizeof(T)];
    const size_t tile = size_t(rows) * C;
    for (uint32_t k = 0; k < n; k++) {
        *g_progress = k;
        const int32_t* v = valid + 6 * k;
        uint8_t* b = bbuf + k * (tile * 4 + 8);
        T scalar;
        std::memcpy(&scalar, b + tile * 4, sizeof(T));
        TileT dt(v[0], v[1]), st(v[4], v[5]);
        MaskT mt(v[2], v[3]);
        TmpT tt(1, 32 / sizeof(T));
        dt.data() = reinterpret_cast<T*>(dbuf) + k * tile;
        st.data() = reinterpret_cast<T*>(abuf) + k * tile;
        mt.data() = reinterpret_cast<W*>(b);
        tt.data() = tmp_buf;
        pto::TSELS(dt, mt, st, tt, scalar);
    }
}

template <uint32_t OpCode, typename T, int C>
void run_cmpsel(uint8_t* dbuf, uint8_t* abuf, uint8_t* bbuf, const int32_t* valid, uint32_t rows, uint32_t n,
                uint32_t alias)
{
    using SrcT = pto::Tile<pto::TileType::Vec, T, kCmpRows, C, pto::BLayout::RowMajor, -1, -1>;
    const size_t tile = size_t(rows) * C;
    for (uint32_t k = 0; k < n && OpCode != TSELS_OP; k++) {
        *g_progress = k;
        const int32_t* v = valid + 6 * k;
        if constexpr (OpCode == TCMP_OP) {
            const auto mode = static_cast<pto::CmpMode>(alias & 7);
            SrcT s0(v[2], v[3]), s1(v[4], v[5]);
            s0.data() = reinterpret_cast<T*>(abuf) + k * tile;
            s1.data() = reinterpret_cast<T*>(bbuf) + k * tile;
            uint8_t* d = dbuf + k * size_t(kCmpRows) * C * 4;
            if (alias & 8) {
                using DstT = pto::Tile<pto::TileType::Vec, uint32_t, kCmpRows, C, pto::BLayout::RowMajor, -1, -1>;
                DstT dt(v[0], v[1]);
                dt.data() = reinterpret_cast<uint32_t*>(d);
                pto::TCMP(dt, s0, s1, mode);
            } else if constexpr (u8_mask_compare<T>()) {
                using DstT = pto::Tile<pto::TileType::Vec, uint8_t, kCmpRows, C, pto::BLayout::RowMajor, -1, -1>;
                DstT dt(v[0], v[1]);
                dt.data() = d;
                pto::TCMP(dt, s0, s1, mode);
            }
        } else if constexpr (OpCode == TCMPS_OP) {
            using DstT = pto::Tile<pto::TileType::Vec, uint8_t, kCmpRows, C, pto::BLayout::RowMajor, -1, -1>;
            T scalar;
            std::memcpy(&scalar, bbuf + k * 8, sizeof(T));
            SrcT s0(v[2], v[3]);
            DstT dt(v[0], v[1]);
            s0.data() = reinterpret_cast<T*>(abuf) + k * tile;
            dt.data() = dbuf + k * size_t(kCmpRows) * C;
            pto::TCMPS(dt, s0, scalar, static_cast<pto::CmpMode>(alias & 7));
        } else if constexpr (OpCode == TSEL_OP) {
            using TileT = pto::Tile<pto::TileType::Vec, T, kRows, C, pto::BLayout::RowMajor, -1, -1>;
            using MaskT = pto::Tile<pto::TileType::Vec, uint8_t, kRows, C, pto::BLayout::RowMajor, -1, -1>;
            using TmpT = pto::Tile<pto::TileType::Vec, uint8_t, 1, 32, pto::BLayout::RowMajor, -1, -1>;
            static uint8_t tmp_buf[32];
            TileT dt(v[0], v[1]), s0(v[4], v[5]), s1(v[4], v[5]);
            MaskT mt(v[2], v[3]);
            TmpT tt(1, 32);
            dt.data() = reinterpret_cast<T*>(dbuf) + k * tile;
            s0.data() = reinterpret_cast<T*>(abuf) + 2 * k * tile;
            s1.data() = reinterpret_cast<T*>(abuf) + (2 * k + 1) * tile;
            mt.data() = bbuf + k * tile;
            tt.data() = tmp_buf;
            pto::TSEL(dt, mt, s0, s1, tt);
        }
    }
    if constexpr (OpCode == TSELS_OP) {
        if (alias == 0) run_tsels_words<T, uint8_t, C>(dbuf, abuf, bbuf, valid, rows, n);
        else if (alias == 1) run_tsels_words<T, uint16_t, C>(dbuf, abuf, bbuf, valid, rows, n);
        else run_tsels_words<T, uint32_t, C>(dbuf, abuf, bbuf, valid, rows, n);
    }
}

// TROWSUM / TCOLSUM (harness.cpp says what the buffers hold): dst and src at the stride C with their own valid
// regions. The forms with a tmp tile get one of src's shape, zeroed, of their own (the simulator reads none).
template <uint32_t OpCode, typename T, int C>
void run_reduce(uint8_t* dbuf, uint8_t* abuf, const int32_t* valid, uint32_t rows, uint32_t n, uint32_t alias)
{
    using TileT = pto::Tile<pto::TileType::Vec, T, kRows, C, pto::BLayout::RowMajor, -1, -1>;
    std::vector<T> tmp_buf(size_t(rows) * C);
    each_dst_src<T, C>(dbuf, abuf, valid, rows, n, [&](auto& dt, auto& st, const int32_t* v) {
        TileT tt(v[2], v[3]);
        std::memset(static_cast<void*>(tmp_buf.data()), 0, tmp_buf.size() * sizeof(T));
        tt.data() = tmp_buf.data();
        if constexpr (OpCode == TROWSUM_OP) {
            pto::TROWSUM(dt, st, tt);
        } else {
            static_assert(OpCode == TCOLSUM_OP, "an opcode without a kernel");
            if (alias == 0) {
                pto::TCOLSUM(dt, st);
            } else {
                pto::TCOLSUM(dt, st, tt, alias == 1);
            }
        }
    });
}

// TPAIRREDUCESUM (harness.cpp says what the buffers hold): src at the stride C; dst at the stride C with kPairRows
// static rows, each case's slice that many rows (the simulator zeroes its whole static tile first)
template <typename T, int C>
void run_pairsum(uint8_t* dbuf, uint8_t* abuf, const int32_t* valid, uint32_t rows, uint32_t n)
{
    using DstT = pto::Tile<pto::TileType::Vec, T, kPairRows, C, pto::BLayout::RowMajor, -1, -1>;
    using SrcT = pto::Tile<pto::TileType::Vec, T, kRows, C, pto::BLayout::RowMajor, -1, -1>;
    const size_t tile = size_t(rows) * C;
    for (uint32_t k = 0; k < n; k++) {
        *g_progress = k;
        const int32_t* v = valid + 6 * k;
        DstT dt(v[0], v[1]);
        SrcT st(v[2], v[3]);
        dt.data() = reinterpret_cast<T*>(dbuf) + k * size_t(kPairRows) * C;
        st.data() = reinterpret_cast<T*>(abuf) + k * tile;
        pto::TPAIRREDUCESUM(dt, st);
    }
}

// TROWPROD / TCOLPROD (harness.cpp says what the buffers hold): as the sums; TROWPROD's tmp tile one of src's
// shape, zeroed, of its own (the simulator reads none)
template <uint32_t OpCode, typename T, int C>
void run_product(uint8_t* dbuf, uint8_t* abuf, const int32_t* valid, uint32_t rows, uint32_t n)
{
    using TileT = pto::Tile<pto::TileType::Vec, T, kRows, C, pto::BLayout::RowMajor, -1, -1>;
    std::vector<T> tmp_buf(size_t(rows) * C);
    each_dst_src<T, C>(dbuf, abuf, valid, rows, n, [&](auto& dt, auto& st, const int32_t* v) {
        if constexpr (OpCode == TROWPROD_OP) {
            TileT tt(v[2], v[3]);
            std::memset(static_cast<void*>(tmp_buf.data()), 0, tmp_buf.size() * sizeof(T));
            tt.data() = tmp_buf.data();
            pto::TROWPROD(dt, st, tt);
        } else {
            static_assert(OpCode == TCOLPROD_OP, "an opcode without a kernel");
            pto::TCOLPROD(dt, st);
        }
    });
}

template <uint32_t OpCode, typename T, int C>
void run_kernel(uint8_t* d, uint8_t* a, uint8_t* b, const int32_t* v, uint32_t rows, uint32_t n, uint32_t alias,
                uint8_t* dend)
{
    if constexpr (OpCode == TSORT32_OP) {
        run_tsort32<T, C>(d, a, b, v, rows, n);
    } else if constexpr (OpCode == TMRGSORT_OP) {
        run_tmrgsort<T, C>(d, a, v, n, alias);
    } else if constexpr (is_arg(OpCode)) {
        run_tpartarg<OpCode, T, C>(d, a, b, v, rows, n);
    } else if constexpr (is_unary(OpCode)) {
        run_unary<OpCode, T, C>(d, a, v, rows, n, alias);
    } else if constexpr (is_scalar(OpCode)) {
        run_scalar<OpCode, T, C>(d, a, b, v, rows, n);
    } else if constexpr (is_expand(OpCode)) {
        run_expand<OpCode, T, C>(d, a, v, rows, n);
    } else if constexpr (is_row_expand_arith(OpCode)) {
        run_row_expand_arith<OpCode, T, C>(d, a, b, v, rows, n, alias);
    } else if constexpr (is_col_expand_arith(OpCode)) {
        run_col_expand_arith<OpCode, T, C>(d, a, b, v, rows, n);
    } else if constexpr (is_argreduce(OpCode)) {
        run_argreduce<OpCode, T, C>(d, a, v, rows, n, alias);
    } else if constexpr (is_reduce(OpCode)) {
        run_reduce<OpCode, T, C>(d, a, v, rows, n);
    } else if constexpr (is_generation(OpCode)) {
        run_generation<OpCode, T, C>(d, a, v, rows, n);
    } else if constexpr (is_cmpsel(OpCode)) {
        run_cmpsel<OpCode, T, C>(d, a, b, v, rows, n, alias);
    } else if constexpr (is_sum(OpCode)) {
        run_reduce<OpCode, T, C>(d, a, v, rows, n, alias);
    } else if constexpr (is_pairsum(OpCode)) {
        run_pairsum<T, C>(d, a, v, rows, n);
    } else if constexpr (is_prod(OpCode)) {
        run_product<OpCode, T, C>(d, a, v, rows, n);
    } else {
        run_tpart<OpCode, T, C>(d, a, b, v, rows, n, alias, dend);
    }
}

// calls f(std::integral_constant<int, kCols[index]>) for a compiled stride index, so that each kernel instantiates
// its tiles at every stride; false for any other index
template <typename F>
bool with_stride(uint32_t index, F&& f)
{
    switch (index) {
#define PTOFUZZ_COLS_CASE(i) \
    case i:                  \
        return f(std::integral_constant<int, kCols[i]>{});
        PTOFUZZ_COLS_CASE(0) PTOFUZZ_COLS_CASE(1) PTOFUZZ_COLS_CASE(2) PTOFUZZ_COLS_CASE(3)
        PTOFUZZ_COLS_CASE(4) PTOFUZZ_COLS_CASE(5) PTOFUZZ_COLS_CASE(6) PTOFUZZ_COLS_CASE(7)
#undef PTOFUZZ_COLS_CASE
        default:
            return false;
    }
}

template <uint32_t OpCode, typename T>
bool dispatch_cols(const Header& h, uint8_t* d, uint8_t* a, uint8_t* b, const int32_t* v, uint8_t* dend)
{
    return with_stride(h.cols_index, [&](auto c) {
        run_kernel<OpCode, T, decltype(c)::value>(d, a, b, v, h.rows, h.n, h.alias, dend);
        return true;
    });
}

// TCVT: the element type of each harness dtype code (build.DTYPES says the same)
template <uint32_t Code> struct CodeType;
template <> struct CodeType<0> { using type = float; };
template <> struct CodeType<1> { using type = half; };
template <> struct CodeType<2> { using type = bfloat16_t; };
template <> struct CodeType<3> { using type = int32_t; };
template <> struct CodeType<4> { using type = int16_t; };
template <> struct CodeType<5> { using type = int8_t; };
template <> struct CodeType<6> { using type = uint8_t; };
template <> struct CodeType<7> { using type = uint32_t; };
template <> struct CodeType<8> { using type = uint16_t; };
template <> struct CodeType<9> { using type = int64_t; };
template <> struct CodeType<10> { using type = uint64_t; };
// the 4-bit types: int4b_t one element a byte; the FP4 tiles hold two a byte (element 2i in the low nibble)
template <> struct CodeType<11> { using type = pto::int4b_t; };
template <> struct CodeType<12> { using type = float4_e2m1x2_t; };
template <> struct CodeType<13> { using type = float4_e1m2x2_t; };
constexpr uint32_t kCvtCodes = 14;

// the destinations compiled per source code, one bit per destination code (build.CVT_PAIRS says the same): the
// pairs some platform's page lists among ptofuzz's dtypes, float32 -> float32, and the pairs of the cpu's own
// system test (float32 -> uint8, uint16, int4, FP4; int8, uint16, int4, FP4 -> float32; uint16 -> int32)
constexpr uint32_t kCvtPairs[] = {
    (1u << 0) | (1u << 1) | (1u << 2) | (1u << 3) | (1u << 4) | (1u << 9) | (1u << 6) | (1u << 8) | (1u << 11) | (1u << 12) | (1u << 13),  // float32
    (1u << 0) | (1u << 3) | (1u << 4) | (1u << 5) | (1u << 6),              // float16
    (1u << 0) | (1u << 1) | (1u << 3),                                      // bfloat16
    (1u << 0) | (1u << 1) | (1u << 4) | (1u << 6) | (1u << 8) | (1u << 9),  // int32
    (1u << 0) | (1u << 1) | (1u << 3) | (1u << 6) | (1u << 7),              // int16
    (1u << 1) | (1u << 3) | (1u << 4) | (1u << 0),                          // int8
    (1u << 1) | (1u << 8),                                                  // uint8
    (1u << 4) | (1u << 6) | (1u << 8),                                      // uint32
    (1u << 0) | (1u << 3),                                                  // uint16
    (1u << 0) | (1u << 3),                                                  // int64
    0u,                                                                     // uint64
    (1u << 0),                                                              // int4
    (1u << 0),                                                              // float4_e2m1
    (1u << 0),                                                              // float4_e1m2
};
constexpr bool cvt_pair(uint32_t from, uint32_t to)
{
    return from < kCvtCodes && to < kCvtCodes && (kCvtPairs[from] >> to) & 1u;
}

// one request of TCVT from S to D: A = the sources (S), output = the destinations (D), both at stride C; the six
// ints are dst's and src's valid regions, the RoundMode ordinal and the saturation (0 ON, 1 OFF, 2: the overload
// without one)
template <typename S, typename D, int C>
void run_tcvt(uint8_t* dbuf, uint8_t* abuf, const int32_t* valid, uint32_t rows, uint32_t n)
{
    using DstT = pto::Tile<pto::TileType::Vec, D, kRows, C, pto::BLayout::RowMajor, -1, -1>;
    using SrcT = pto::Tile<pto::TileType::Vec, S, kRows, C, pto::BLayout::RowMajor, -1, -1>;
    const size_t tile = size_t(rows) * C;
    for (uint32_t k = 0; k < n; k++) {
        *g_progress = k;
        const int32_t* v = valid + 6 * k;
        DstT dt(v[0], v[1]);
        SrcT st(v[2], v[3]);
        dt.data() = reinterpret_cast<D*>(dbuf) + k * tile;
        st.data() = reinterpret_cast<S*>(abuf) + k * tile;
        const auto mode = static_cast<pto::RoundMode>(v[4]);
        if (v[5] == 2) {
            pto::TCVT(dt, st, mode);
        } else {
            pto::TCVT(dt, st, mode, v[5] == 0 ? pto::SaturationMode::ON : pto::SaturationMode::OFF);
        }
    }
}

template <typename S, uint32_t From, int C>
bool tcvt_to(uint32_t to, uint8_t* d, uint8_t* a, const int32_t* v, uint32_t rows, uint32_t n)
{
    switch (to) {
#define PTOFUZZ_CVT_CASE(code)                                                                     \
    case code:                                                                                     \
        if constexpr (cvt_pair(From, code)) {                                                      \
            run_tcvt<S, typename CodeType<code>::type, C>(d, a, v, rows, n);                       \
            return true;                                                                           \
        }                                                                                          \
        return false;
        PTOFUZZ_CVT_CASE(0) PTOFUZZ_CVT_CASE(1) PTOFUZZ_CVT_CASE(2) PTOFUZZ_CVT_CASE(3) PTOFUZZ_CVT_CASE(4)
        PTOFUZZ_CVT_CASE(5) PTOFUZZ_CVT_CASE(6) PTOFUZZ_CVT_CASE(7) PTOFUZZ_CVT_CASE(8) PTOFUZZ_CVT_CASE(9)
        PTOFUZZ_CVT_CASE(10) PTOFUZZ_CVT_CASE(11) PTOFUZZ_CVT_CASE(12) PTOFUZZ_CVT_CASE(13)
#undef PTOFUZZ_CVT_CASE
        default:
            return false;
    }
}

// TCVT's kernel of one source type (code From): the destination is the request's `alias`; false when the pair or
// the stride is not compiled in
template <typename S, uint32_t From>
bool dispatch_tcvt(const Header& h, uint8_t* d, uint8_t* a, uint8_t*, const int32_t* v, uint8_t*)
{
    return with_stride(h.cols_index, [&](auto c) {
        return tcvt_to<S, From, decltype(c)::value>(h.alias, d, a, v, h.rows, h.n);
    });
}

// TDEQUANT of a source type S at stride C: dst (float) and src share the valid region v[0] x v[1]; the scale and
// offset tiles (float, kParaCols columns a row) have valid region v[0] x v[2]
template <typename S, int C>
void run_tdequant(uint8_t* dbuf, uint8_t* abuf, uint8_t* bbuf, const int32_t* valid, uint32_t rows, uint32_t n)
{
    using DstT = pto::Tile<pto::TileType::Vec, float, kRows, C, pto::BLayout::RowMajor, -1, -1>;
    using SrcT = pto::Tile<pto::TileType::Vec, S, kRows, C, pto::BLayout::RowMajor, -1, -1>;
    using ParaT = pto::Tile<pto::TileType::Vec, float, kRows, kParaCols, pto::BLayout::RowMajor, -1, -1>;
    const size_t tile = size_t(rows) * C, para = size_t(rows) * kParaCols;
    for (uint32_t k = 0; k < n; k++) {
        *g_progress = k;
        const int32_t* v = valid + 6 * k;
        DstT dt(v[0], v[1]);
        SrcT st(v[0], v[1]);
        ParaT scale(v[0], v[2]);
        ParaT offset(v[0], v[2]);
        dt.data() = reinterpret_cast<float*>(dbuf) + k * tile;
        st.data() = reinterpret_cast<S*>(abuf) + k * tile;
        scale.data() = reinterpret_cast<float*>(bbuf) + k * 2 * para;
        offset.data() = scale.data() + para;
        pto::TDEQUANT(dt, st, scale, offset);
    }
}

template <typename S>
bool dispatch_tdequant(const Header& h, uint8_t* d, uint8_t* a, uint8_t* b, const int32_t* v, uint8_t*)
{
    return with_stride(h.cols_index, [&](auto c) {
        run_tdequant<S, decltype(c)::value>(d, a, b, v, h.rows, h.n);
        return true;
    });
}

// TQUANT (INT8) at stride C into D (int8_t: INT8_SYM, uint8_t: INT8_ASYM): dst and src (float) share the valid
// region v[0] x v[1]; the scale and offset tiles (float, kParaCols columns a row) have valid region v[2] x 1
template <int C, typename D, pto::QuantType Q>
void run_tquant(uint8_t* dbuf, uint8_t* abuf, uint8_t* bbuf, const int32_t* valid, uint32_t rows, uint32_t n)
{
    using DstT = pto::Tile<pto::TileType::Vec, D, kRows, C, pto::BLayout::RowMajor, -1, -1>;
    using SrcT = pto::Tile<pto::TileType::Vec, float, kRows, C, pto::BLayout::RowMajor, -1, -1>;
    using ParaT = pto::Tile<pto::TileType::Vec, float, kRows, kParaCols, pto::BLayout::RowMajor, -1, -1>;
    const size_t tile = size_t(rows) * C, para = size_t(rows) * kParaCols;
    for (uint32_t k = 0; k < n; k++) {
        *g_progress = k;
        const int32_t* v = valid + 6 * k;
        DstT dt(v[0], v[1]);
        SrcT st(v[0], v[1]);
        ParaT scale(v[2], 1);
        ParaT offset(v[2], 1);
        dt.data() = reinterpret_cast<D*>(dbuf) + k * tile;
        st.data() = reinterpret_cast<float*>(abuf) + k * tile;
        scale.data() = reinterpret_cast<float*>(bbuf) + k * 2 * para;
        offset.data() = scale.data() + para;
        if constexpr (Q == pto::QuantType::INT8_SYM) {
            pto::TQUANT<Q>(dt, st, scale);
        } else {
            pto::TQUANT<Q>(dt, st, scale, &offset);
        }
    }
}

// TQUANT's MX forms at stride C from a source S into D (int8_t: MXFP8's E4M3 codes; float4_e2m1x2_t: MXFP4's
// E2M1 codes, two a byte), scale algorithm A, groups along rows (Axis 1, ND) or columns (Axis 0, DN), and for
// Nz the NZ overload (VecStoreMode::NZ: the ND call, then the exponents reordered ZZ into a second tile). The
// tiles hold kMxRows static rows: the simulator zero-fills (MXFP4) and groups (DN) whole static tiles, so each
// is a buffer of its own here, sized as its type says (Tile::GetSizeInBytes), the case's rows copied in (zeros
// beyond them) and the results copied out: per case kMxParts regions of rows x C bytes (the codes, packed for
// MXFP4 at C / 2 a row; the exponents, ND rows x max(32, C / 32) bytes, DN ceil(rows / 32) x C; the ZZ
// exponents, rows x C / 32 bytes in file order). Where no address sanitizer watches, the MXFP4 destination has
// as many bytes again behind it: the simulator's zero-fill runs past the tile (cpusim-tquant-mxfp4-overfill),
// which a sanitized build reports and a plain one must survive to compare the values.
#if defined(__SANITIZE_ADDRESS__)
constexpr size_t kMxSlack = 1;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr size_t kMxSlack = 1;
#else
constexpr size_t kMxSlack = 2;
#endif
#else
constexpr size_t kMxSlack = 2;
#endif

template <int C, typename S, typename D, pto::QuantScaleAlg A, int Axis, bool Nz>
void run_tquant_mx(uint8_t* dbuf, uint8_t* abuf, const int32_t* valid, uint32_t rows, uint32_t n)
{
    constexpr bool fp4 = !std::is_same_v<D, int8_t>;
    constexpr int R = kMxRows, E = Axis == 1 ? (C / 32 < 32 ? 32 : C / 32) : C, ER = Axis == 1 ? R : R / 32;
    constexpr int F = R * C / 32;  // the flat group maxima and scalings: a float per group, either axis
    using DstT = pto::Tile<pto::TileType::Vec, D, R, C, pto::BLayout::RowMajor, -1, -1>;
    using SrcT = pto::Tile<pto::TileType::Vec, S, R, C, pto::BLayout::RowMajor, -1, -1>;
    using ExpT = pto::Tile<pto::TileType::Vec, uint8_t, ER, E, pto::BLayout::RowMajor, -1, -1>;
    using ScrT = pto::Tile<pto::TileType::Vec, float, 1, F, pto::BLayout::RowMajor, -1, -1>;
    constexpr size_t dst_bytes = DstT::GetSizeInBytes();
    const size_t tile = size_t(rows) * C, each = kMxParts * tile;
    std::vector<S> src(size_t(R) * C);
    std::vector<uint8_t> dst(dst_bytes * (fp4 ? kMxSlack : 1)), exp(size_t(ER) * E), zz(size_t(ER) * E);
    std::vector<float> scratch(size_t(F) * 2);
    for (uint32_t k = 0; k < n; k++) {
        *g_progress = k;
        const int32_t* v = valid + 6 * k;
        std::memcpy(src.data(), abuf + k * tile * sizeof(S), tile * sizeof(S));
        std::fill(dst.begin(), dst.end(), 0);
        DstT dt(v[0], v[1]);
        SrcT st(v[0], v[1]);
        ExpT et(Axis == 1 ? v[0] : (v[0] + 31) / 32, Axis == 1 ? E : v[1]);
        ExpT ez(Axis == 1 ? v[0] : (v[0] + 31) / 32, Axis == 1 ? E : v[1]);
        ScrT mt(1, F), sc(1, F);
        dt.data() = reinterpret_cast<D*>(dst.data());
        st.data() = src.data();
        et.data() = exp.data();
        ez.data() = zz.data();
        mt.data() = scratch.data();
        sc.data() = scratch.data() + F;
        if constexpr (Nz) {
            pto::TQUANT<pto::QuantType::MXFP8, pto::VecStoreMode::NZ>(dt, st, &et, &mt, &sc, &ez);
        } else {
            constexpr auto alg = fp4 ? (A == pto::QuantScaleAlg::OCP ? pto::MxQuantAlg::OcpMxFp4E2M1
                                                                      : pto::MxQuantAlg::NvMxFp4E2M1)
                                     : (A == pto::QuantScaleAlg::OCP ? pto::MxQuantAlg::OcpMxFp8E4M3
                                                                      : pto::MxQuantAlg::NvMxFp8E4M3);
            pto::TQUANT<Axis, alg>(dt, st, &et, &mt, &sc);
        }
        uint8_t* out = dbuf + k * each;
        std::memcpy(out, dst.data(), fp4 ? tile / 2 : tile);
        std::memcpy(out + tile, exp.data(), Axis == 1 ? size_t(rows) * E : size_t((rows + 31) / 32) * C);
        if constexpr (Nz) std::memcpy(out + 2 * tile, zz.data(), size_t(rows) * (C / 32));
    }
}

// one MX form (protocol.hpp's kMx* bits of the request's alias) at stride C
template <int C, typename S, typename D, pto::QuantScaleAlg A>
void tquant_mx_layout(uint32_t alias, uint8_t* d, uint8_t* a, const int32_t* v, uint32_t rows, uint32_t n)
{
    if (alias & kMxDn) {
        run_tquant_mx<C, S, D, A, 0, false>(d, a, v, rows, n);
    } else if (alias & kMxNz) {
        if constexpr (!std::is_same_v<D, int8_t> || A != pto::QuantScaleAlg::OCP || C < 64) {
            return;  // refused in tquant_mx: the NZ overload is MXFP8's, OCP's (its ND call), on whole pairs of groups
        } else {
            run_tquant_mx<C, S, D, A, 1, true>(d, a, v, rows, n);
        }
    } else {
        run_tquant_mx<C, S, D, A, 1, false>(d, a, v, rows, n);
    }
}

template <typename S>
bool tquant_mx(const Header& h, uint8_t* d, uint8_t* a, const int32_t* v)
{
    const bool fp4 = h.alias & kMxFp4, nv = h.alias & kMxNv, nz = h.alias & kMxNz;
    if (h.rows > uint32_t(kMxRows) || (fp4 && std::is_same_v<S, float>) || (nz && (fp4 || nv || h.cols_index == 0))) {
        return false;  // FP4 from float: no page documents it (TQUANT.md:116), so it is not compiled
    }
    return with_stride(h.cols_index, [&](auto c) {
        constexpr int C = decltype(c)::value;
        if constexpr (!std::is_same_v<S, float>) {
            if (fp4) {
                if (nv) {
                    tquant_mx_layout<C, S, float4_e2m1x2_t, pto::QuantScaleAlg::NV>(h.alias, d, a, v, h.rows, h.n);
                } else {
                    tquant_mx_layout<C, S, float4_e2m1x2_t, pto::QuantScaleAlg::OCP>(h.alias, d, a, v, h.rows, h.n);
                }
                return true;
            }
        }
        if (nv) {
            tquant_mx_layout<C, S, int8_t, pto::QuantScaleAlg::NV>(h.alias, d, a, v, h.rows, h.n);
        } else {
            tquant_mx_layout<C, S, int8_t, pto::QuantScaleAlg::OCP>(h.alias, d, a, v, h.rows, h.n);
        }
        return true;
    });
}

template <typename S>
bool dispatch_tquant(const Header& h, uint8_t* d, uint8_t* a, uint8_t* b, const int32_t* v, uint8_t*)
{
    if (is_mx_quant(h.op, h.alias)) {
        return tquant_mx<S>(h, d, a, v);
    }
    if (!std::is_same_v<S, float> || (h.alias != 5 && h.alias != 6)) return false;  // int8 or uint8, from float
    return with_stride(h.cols_index, [&](auto c) {
        if (h.alias == 5) {
            run_tquant<decltype(c)::value, int8_t, pto::QuantType::INT8_SYM>(d, a, b, v, h.rows, h.n);
        } else {
            run_tquant<decltype(c)::value, uint8_t, pto::QuantType::INT8_ASYM>(d, a, b, v, h.rows, h.n);
        }
        return true;
    });
}

// the kernel a PTOFUZZ_KERNEL line registers
template <uint32_t OpCode, typename T, uint32_t DtCode>
constexpr Kernel kernel_of()
{
    if constexpr (is_cvt(OpCode)) {
        return &dispatch_tcvt<T, DtCode>;
    } else if constexpr (OpCode == TDEQUANT_OP) {
        return &dispatch_tdequant<T>;
    } else if constexpr (OpCode == TQUANT_OP) {
        return &dispatch_tquant<T>;
    } else {
        return &dispatch_cols<OpCode, T>;
    }
}

}  // namespace ptofuzz

#define PTOFUZZ_KERNEL(opcode, mnemonic, ctype, dtcode)                                                     \
    static const bool ptofuzz_kernel_##mnemonic##_##dtcode =                                             \
        ptofuzz::add_kernel(opcode, dtcode, #mnemonic, ptofuzz::kernel_of<opcode, ctype, dtcode>());

#endif
