// ptofuzz's own harness around the pto-isa CPU simulator: the main program.
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
// TADD/TSUB/TMUL/TMAX/TMIN lay out as TPART*: A = src0, B = src1, output = dst. TABS/TNEG/TRELU/TNOT: A = src,
// no B, output = dst; valid regions dst, src (and two unused ints); `alias` 1 = in place (dst starts as src).
// TADDS/TSUBS/TMULS/TMAXS/TMINS/TLRELU: A = src0, B = a tile whose first element is the scalar, output = dst;
// valid regions dst, src0 (and 1, 1). TAND/TOR/TXOR/TSHL/TSHR lay out as TADD, TANDS/TORS/TXORS/TSHLS/TSHRS as
// TADDS.
// TROWSUM/TCOLSUM: A = src, no B, output = dst (TROWSUM's sums in column 0, TCOLSUM's in row 0); valid regions
// dst, src; `alias` = TCOLSUM's form (0 two operands, 1 four with isBinary true, 2 four with isBinary false).
// TROWPROD/TCOLPROD: as TROWSUM/TCOLSUM, without an alias (TROWPROD's tmp tile is one of src's shape, zeroed).
// TEXPANDS/TCI/TTRI: A = a tile whose first element is TEXPANDS's scalar (unused by TCI and TTRI), no B, output =
// dst; the six ints are dst's valid region, then TCI's start bits and direction or TTRI's diagonal and orientation.
// TCMP/TCMPS/TSEL/TSELS: see cmpsel_bytes; valid regions dst, src0, src1 (TCMP) or dst, src0 (TCMPS, and 1, 1)
// or dst, mask, src (the selects); `alias` = the CmpMode (+ 8: uint32 words, TCMP) or TSELS's mask word (0 uint8,
// 1 uint16, 2 uint32).
// TDEQUANT: A = src, B = each case's scale tile then offset tile (float, rows x kParaCols), output = dst (float);
// valid regions dst (src's too) and the parameter tiles' valid columns (their valid rows are dst's).
// TQUANT: A = src (float), B = each case's scale tile then offset tile (float, rows x kParaCols), output = dst
// (int8_t when `alias` is int8's code: INT8_SYM; uint8_t: INT8_ASYM); valid regions dst (src's too) and the
// parameter tiles' valid rows (one column). Its MX forms (`alias` kMxBase and the form's bits): A = src (the
// request's dtype), no B, output = per case kMxParts regions of rows x stride bytes (protocol.hpp).
// TPAIRREDUCESUM: A = src, no B, output = per case dst as kPairRows rows at the stride (the simulator zeroes the
// whole static tile); valid regions dst, src (and two unused ints).
// TROWMAX/TROWMIN/TCOLMAX/TCOLMIN: A = src, no B, output = dst at the same stride (a row reduction writes dst's
// first column, a column reduction its first row); valid regions dst, src (and two unused ints).
// TROWARGMAX/TROWARGMIN/TCOLARGMAX/TCOLARGMIN: A = src, no B, output = per case the value tile (of the element
// type) then the index tile (uint32), both rows x cols; valid regions dst (both tiles), src; `alias` 1 = the value
// + index form.
// TCVT: the request's dtype is the source's and `alias` the destination's dtype code; A = src, no B, output = dst
// (of the destination type); the six ints are dst's and src's valid regions, the RoundMode ordinal and the
// saturation (0 ON, 1 OFF, 2 the overload without one).
// TROWEXPAND{ADD,SUB,MUL,MAX,MIN}: A = src0, B = src1, output = dst; valid regions dst, src0, src1; `alias` says
// which source is expanded and whether it is a ColMajor column (protocol.hpp).
// TCOLEXPAND{ADD,SUB,MUL,MAX,MIN}: A = src0, B = src1 (its scalars in its first row), output = dst; valid regions
// dst, src0, src1.
//
// This file holds the protocol and includes nothing of pto-isa: the kernels are objects of their own (kernels.hpp,
// one per instruction, compiled and cached apart) that register themselves before main runs; `--list` prints
// what registered. Build define PTOFUZZ_PLANTS (test-only): read PTOFUZZ_PLANT (see kernels.hpp).
// Build define PTOFUZZ_LIBRARY: no main program; the shared library of the native-coverage build exports
// ptofuzz_serve (one request over the caller's buffers) and ptofuzz_plant instead.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "protocol.hpp"

namespace ptofuzz {

volatile int64_t* g_progress = nullptr;
int g_plant = 0;

namespace {

struct Entry {
    Kernel kernel;
    const char* mnemonic;
};
Entry g_kernels[kMaxOps][kMaxDtypes];  // zero-initialised before any object's initialisers run

// bytes of the A, B and output buffers of a request of n cases of `elems` elements (n x rows x cols)
// the compare/select family (per case, at stride `cols`): TCMP A = src0, B = src1, output = dst words (kCmpRows
// rows, up to 4 bytes); TCMPS A = src0, B = the scalar (8 bytes), output = dst bytes (kCmpRows rows); TSEL A =
// src0 then src1, B = mask bytes, output = dst; TSELS A = src, B = mask words (up to 4 bytes) then the scalar (8
// bytes), output = dst
void cmpsel_bytes(uint32_t op, size_t es, size_t n, size_t elems, size_t cols, size_t& a, size_t& b, size_t& d)
{
    const size_t cmp_tile = size_t(kCmpRows) * cols;
    a = op == TSEL_OP ? 2 * elems * es : elems * es;
    b = op == TCMP_OP ? elems * es : op == TCMPS_OP ? n * 8 : op == TSEL_OP ? elems : elems * 4 + n * 8;
    d = op == TCMP_OP ? n * cmp_tile * 4 : op == TCMPS_OP ? n * cmp_tile : elems * es;
}

void buffer_bytes(uint32_t op, size_t es, size_t n, size_t elems, size_t cols, size_t& a, size_t& b, size_t& d)
{
    if (is_cmpsel(op)) return cmpsel_bytes(op, es, n, elems, cols, a, b, d);
    if (is_pairsum(op)) {  // the source; per case a destination of kPairRows static rows
        a = elems * es;
        b = 0;
        d = n * size_t(kPairRows) * cols * es;
        return;
    }
    if (is_argreduce(op)) {  // the source; per case a value tile then a uint32 index tile
        a = elems * es;
        b = 0;
        d = elems * (es + 4);
        return;
    }
    const size_t per = is_arg(op) ? es + 4 : es;  // TPARTARG*: a uint32 index beside every value
    a = elems * per;
    const bool no_b = op == TMRGSORT_OP || is_unary(op) || is_generation(op) || is_expand(op) || is_sum(op)
        || is_reduce(op) || is_prod(op);
    b = op == TSORT32_OP ? elems * 4 : no_b ? 0 : elems * per;
    d = op == TSORT32_OP ? elems * 8 : op == TMRGSORT_OP ? n * (cols * es + 8) : elems * per;
}

size_t element_size(uint32_t dtype)
{
    static const size_t sizes[] = {4, 2, 2, 4, 2, 1, 1, 4, 2, 8, 8, 1, 1, 1};  // 11..13: int4, FP4 (a byte each)
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

bool add_kernel(uint32_t op, uint32_t dtype, const char* mnemonic, Kernel kernel)
{
    if (op >= kMaxOps || dtype >= kMaxDtypes) return false;
    g_kernels[op][dtype] = Entry{kernel, mnemonic};
    return true;
}

// The byte counts of a request's A, B and output buffers; false for a malformed header.
bool request_bytes(const Header& h, size_t& abytes, size_t& bbytes, size_t& bytes)
{
    const size_t es = element_size(h.dtype);
    if (h.magic != kMagic || es == 0 || h.cols_index >= sizeof(kCols) / sizeof(kCols[0])) return false;
    const size_t elems = size_t(h.n) * h.rows * kCols[h.cols_index];
    buffer_bytes(h.op, es, h.n, elems, kCols[h.cols_index], abytes, bbytes, bytes);
    if (is_cvt(h.op)) {  // the output holds the destination type (alias), there is no B
        const size_t ds = element_size(h.alias);
        if (ds == 0) return false;
        bbytes = 0;
        bytes = elems * ds;
    }
    if (h.op == TDEQUANT_OP) {  // float parameters and output whatever the source's type
        bbytes = size_t(h.n) * h.rows * kParaCols * 4 * 2;
        bytes = elems * 4;
    }
    if (h.op == TQUANT_OP) {  // float parameters, a one-byte output (int8 or uint8)
        bbytes = size_t(h.n) * h.rows * kParaCols * 4 * 2;
        bytes = elems;
    }
    if (is_mx_quant(h.op, h.alias)) {  // no B; the codes, then the exponents
        bbytes = 0;
        bytes = elems * kMxParts;
    }
    return true;
}

// Run one request whose buffers hold request_bytes' counts (d zeroed, `dcap` bytes from d may be written by a
// planted out-of-bounds bug only); false when no kernel serves it.
bool serve(const Header& h, uint8_t* d, size_t dcap, uint8_t* a, uint8_t* b, const int32_t* valid)
{
    const Kernel kernel = h.op < kMaxOps && h.dtype < kMaxDtypes ? g_kernels[h.op][h.dtype].kernel : nullptr;
    return kernel && kernel(h, d, a, b, valid, d + dcap);
}

}  // namespace ptofuzz

using namespace ptofuzz;

#ifdef PTOFUZZ_LIBRARY
// The in-process form (a shared library the atheris engine loads, so that libFuzzer sees the simulator's
// branches): one request over buffers the caller owns, sized as request_bytes says. Returns 0 when served, 1 when
// no kernel serves it, 3 when the header is malformed or a buffer has another size.
extern "C" int ptofuzz_serve(const Header* h, const int32_t* valid, uint8_t* a, size_t abytes, uint8_t* b,
                             size_t bbytes, uint8_t* d, size_t dbytes, int64_t* progress)
{
    size_t want_a, want_b, want_d;
    if (!request_bytes(*h, want_a, want_b, want_d) || want_a != abytes || want_b != bbytes || want_d != dbytes) {
        return 3;
    }
    static int64_t local_progress = 0;
    g_progress = progress ? progress : &local_progress;
    std::memset(d, 0, dbytes);
    return serve(*h, d, dbytes, a, b, valid) ? 0 : 1;
}

// PTOFUZZ_PLANTS builds: the planted bug to arm (1 oob, 2 hang, 3 deep; 0 none); returns whether the build has plants
extern "C" int ptofuzz_plant(int plant)
{
#ifdef PTOFUZZ_PLANTS
    g_plant = plant;
    return 1;
#else
    (void)plant;
    return 0;
#endif
}
#else
int main(int argc, char** argv)
{
    static int64_t local_progress = 0;
    g_progress = &local_progress;
#ifdef PTOFUZZ_PLANTS
    if (const char* plant = std::getenv("PTOFUZZ_PLANT")) {
        g_plant = std::strcmp(plant, "oob") == 0 ? 1 : std::strcmp(plant, "hang") == 0 ? 2
                  : std::strcmp(plant, "deep") == 0 ? 3 : 0;
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
        for (uint32_t op = 0; op < kMaxOps; op++)
            for (uint32_t dt = 0; dt < kMaxDtypes; dt++)
                if (g_kernels[op][dt].kernel) std::printf("%s %u\n", g_kernels[op][dt].mnemonic, dt);
        return 0;
    }
    std::vector<uint8_t> a, b, d;
    std::vector<int32_t> valid;
    Header h;
    while (read_all(&h, sizeof h)) {
        size_t abytes, bbytes, bytes;
        if (!request_bytes(h, abytes, bbytes, bytes)) {
            std::fprintf(stderr, "ptofuzz harness: malformed request header\n");
            return 3;
        }
        valid.resize(size_t(h.n) * 6);
        a.resize(abytes);
        b.resize(bbytes);
        d.assign(bytes, 0);
        if (!read_all(valid.data(), valid.size() * 4) || !read_all(a.data(), a.size()) || !read_all(b.data(), b.size())) {
            return 3;
        }
        const bool done = serve(h, d.data(), d.capacity(), a.data(), b.data(), valid.data());
        if (!reply(done ? 0 : 1, h.n, d.data(), done ? bytes : 0)) return 3;
    }
    return 0;
}
#endif
