// ptofuzz's own harness around the pto-isa CPU simulator (written for ptofuzz; it only #includes pto-isa's
// public headers from the tree given at build time).
//
// One process serves many requests on stdin/stdout, each a batch of cases of one instruction and element type:
//
//   request  = Header, n x 6 int32 valid regions (three tiles as rows, cols), input A bytes, input B bytes
//   response = Reply, output bytes
//
// Every tile of a request is a row-major buffer of `rows` x kCols[cols_index] elements; the simulator's tiles
// are instantiated at those column counts (the stride) with a large static row count and dynamic valid regions,
// and point straight at the buffers. TPART*: A = src0, B = src1, output = dst, all of the element type; valid
// regions dst, src0, src1. TSORT32: A = src, B = idx (uint32), output = dst records (8 bytes per source
// element, so kCols * 8 / sizeof(T) elements a row); valid regions dst (in elements of T), src, idx.
// TMRGSORT: rows = 4, A = the four source lists (one row each), no B, output = dst (one row) then the four
// executed counts as uint16; the six ints are the valid columns of dst, src0..src3 (elements of T) and the
// block length; `alias` = number of lists (1: the single-list form with that block length) + 8 if exhausted.
// TPARTARGMAX/MIN: each case's slice of A, B and the output holds a value tile (of the element type) followed by
// its index tile (uint32, the same rows x cols): A = src0 and src0_idx, B = src1 and src1_idx, output = dst and
// dst_idx; valid regions dst, src0, src1 (the index tiles get their value tile's). Before each case the harness writes the case's index into the
// progress file (argv[1]), so that a crash or a hang names the case that caused it.
//
// Build defines (set by ptofuzz.cpusim.build):
//   PTOFUZZ_KERNELS  a list of K(OPCODE, MNEMONIC, CTYPE, DTYPECODE): the (instruction, type) pairs to compile
//   PTOFUZZ_PLANTS   test-only: with the environment variable PTOFUZZ_PLANT=oob, a TPART* case whose src0 starts
//                    with the byte 0x5A writes one byte past the dst buffer; with PTOFUZZ_PLANT=hang it loops forever
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <pto/pto-inst.hpp>

namespace {

constexpr uint32_t kMagic = 0x50544f46;  // "PTOF"
constexpr int kRows = 1 << 16;           // static row count of every tile (only the stride matters)
constexpr int kCols[] = {32, 64, 128, 256, 512, 1024, 2048, 4096};

struct Header {
    uint32_t magic, op, dtype, cols_index, rows, n, alias, reserved;
};
struct Reply {
    uint32_t magic, status, n, bytes;
};

volatile int64_t* g_progress = nullptr;
int g_plant = 0;  // 1: out-of-bounds write, 2: hang (PTOFUZZ_PLANTS builds only)

enum Op : uint32_t {
    TPARTADD_OP = 0, TPARTMUL_OP = 1, TPARTMAX_OP = 2, TPARTMIN_OP = 3, TSORT32_OP = 4, TMRGSORT_OP = 5,
    TPARTARGMAX_OP = 6, TPARTARGMIN_OP = 7
};

constexpr bool is_arg(uint32_t op) { return op == TPARTARGMAX_OP || op == TPARTARGMIN_OP; }

// bytes of the A, B and output buffers of a request of n cases of `elems` elements (n x rows x cols)
void buffer_bytes(uint32_t op, size_t es, size_t n, size_t elems, size_t cols, size_t& a, size_t& b, size_t& d)
{
    const size_t per = is_arg(op) ? es + 4 : es;  // TPARTARG*: a uint32 index beside every value
    a = elems * per;
    b = op == TSORT32_OP ? elems * 4 : op == TMRGSORT_OP ? 0 : elems * per;
    d = op == TSORT32_OP ? elems * 8 : op == TMRGSORT_OP ? n * (cols * es + 8) : elems * per;
}

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
        if (g_plant != 0 && reinterpret_cast<uint8_t*>(a)[0] == 0x5A) {
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
        } else {
            pto::TPARTMIN(dt, at, bt);
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
void run_kernel(uint8_t* d, uint8_t* a, uint8_t* b, const int32_t* v, uint32_t rows, uint32_t n, uint32_t alias,
                uint8_t* dend)
{
    if constexpr (OpCode == TSORT32_OP) {
        run_tsort32<T, C>(d, a, b, v, rows, n);
    } else if constexpr (OpCode == TMRGSORT_OP) {
        run_tmrgsort<T, C>(d, a, v, n, alias);
    } else if constexpr (is_arg(OpCode)) {
        run_tpartarg<OpCode, T, C>(d, a, b, v, rows, n);
    } else {
        run_tpart<OpCode, T, C>(d, a, b, v, rows, n, alias, dend);
    }
}

template <uint32_t OpCode, typename T>
bool dispatch_cols(const Header& h, uint8_t* d, uint8_t* a, uint8_t* b, const int32_t* v, uint8_t* dend)
{
    switch (h.cols_index) {
#define PTOFUZZ_COLS_CASE(i)                                                                        \
    case i:                                                                                         \
        run_kernel<OpCode, T, kCols[i]>(d, a, b, v, h.rows, h.n, h.alias, dend);                   \
        return true;
        PTOFUZZ_COLS_CASE(0) PTOFUZZ_COLS_CASE(1) PTOFUZZ_COLS_CASE(2) PTOFUZZ_COLS_CASE(3)
        PTOFUZZ_COLS_CASE(4) PTOFUZZ_COLS_CASE(5) PTOFUZZ_COLS_CASE(6) PTOFUZZ_COLS_CASE(7)
#undef PTOFUZZ_COLS_CASE
        default:
            return false;
    }
}

size_t element_size(uint32_t dtype)
{
    static const size_t sizes[] = {4, 2, 2, 4, 2, 1, 1, 4, 2, 8, 8};
    return dtype < sizeof(sizes) / sizeof(sizes[0]) ? sizes[dtype] : 0;
}

bool read_all(void* p, size_t n)
{
    uint8_t* q = static_cast<uint8_t*>(p);
    while (n) {
        ssize_t got = read(0, q, n);
        if (got <= 0) return false;
        q += got;
        n -= size_t(got);
    }
    return true;
}

bool write_all(const void* p, size_t n)
{
    const uint8_t* q = static_cast<const uint8_t*>(p);
    while (n) {
        ssize_t put = write(1, q, n);
        if (put <= 0) return false;
        q += put;
        n -= size_t(put);
    }
    return true;
}

bool reply(uint32_t status, uint32_t n, const uint8_t* data, size_t bytes)
{
    Reply r{kMagic, status, n, uint32_t(bytes)};
    return write_all(&r, sizeof r) && (bytes == 0 || write_all(data, bytes));
}

}  // namespace

int main(int argc, char** argv)
{
    static int64_t local_progress = 0;
    g_progress = &local_progress;
#ifdef PTOFUZZ_PLANTS
    if (const char* plant = std::getenv("PTOFUZZ_PLANT")) {
        g_plant = std::strcmp(plant, "oob") == 0 ? 1 : std::strcmp(plant, "hang") == 0 ? 2 : 0;
    }
#endif
    if (argc > 1) {
        int fd = open(argv[1], O_RDWR);
        if (fd >= 0) {
            void* m = mmap(nullptr, sizeof(int64_t), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
            if (m != MAP_FAILED) g_progress = static_cast<volatile int64_t*>(m);
            close(fd);
        }
    }
    if (argc > 2 && std::strcmp(argv[2], "--list") == 0) {  // the compiled (instruction, type) pairs
#define K(opcode, mnemonic, ctype, dtcode) std::printf("%s %d\n", #mnemonic, dtcode);
        PTOFUZZ_KERNELS
#undef K
        return 0;
    }
    std::vector<uint8_t> a, b, d;
    std::vector<int32_t> valid;
    Header h;
    while (read_all(&h, sizeof h)) {
        const size_t es = element_size(h.dtype);
        if (h.magic != kMagic || es == 0 || h.cols_index >= sizeof(kCols) / sizeof(kCols[0])) {
            std::fprintf(stderr, "ptofuzz harness: malformed request header\n");
            return 3;
        }
        size_t abytes, bbytes, bytes;
        const size_t elems = size_t(h.n) * h.rows * kCols[h.cols_index];
        buffer_bytes(h.op, es, h.n, elems, kCols[h.cols_index], abytes, bbytes, bytes);
        valid.resize(size_t(h.n) * 6);
        a.resize(abytes);
        b.resize(bbytes);
        d.assign(bytes, 0);
        if (!read_all(valid.data(), valid.size() * 4) || !read_all(a.data(), a.size()) || !read_all(b.data(), b.size())) {
            return 3;
        }
        bool done = false;
        const uint32_t key = h.op * 16 + h.dtype;
        switch (key) {
#define K(opcode, mnemonic, ctype, dtcode)                                                                \
    case (opcode) * 16 + (dtcode):                                                                        \
        done = dispatch_cols<opcode, ctype>(h, d.data(), a.data(), b.data(), valid.data(), d.data() + d.capacity()); \
        break;
            PTOFUZZ_KERNELS
#undef K
            default:
                break;
        }
        if (!reply(done ? 0 : 1, h.n, d.data(), done ? bytes : 0)) return 3;
    }
    return 0;
}
