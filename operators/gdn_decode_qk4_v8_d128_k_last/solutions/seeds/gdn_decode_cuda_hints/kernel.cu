// Gated Delta Net single-token decode, k-last state [B, 8, V=128, K=128] fp32, in CUDA C++ (compiled at run
// time with NVRTC for the device it runs on; no headers, so it builds wherever NVRTC does).
//
// gdn_decode_cuda's kernel (same rows, lanes, warps, OUT_FROM_OLD, PER_ROW; see that seed's kernel.cu) with two
// cache-policy knobs on the state stream, the kernel's only large traffic (64 KiB per (batch, v-head) read once and
// written once; nothing re-reads it in the call):
//   LOAD_CS  = 1: the state read with ld.global.cs (PTX "cache streaming": the lines are marked first to evict,
//                 so they do not displace other L2 lines); 0: a plain load.
//   STORE_CS = 1: the new state written with st.global.cs (streaming store, evict-first); 0: a plain store.
//
// One warp per R consecutive V rows of one (batch, v-head); inside the warp, LPR lanes share a row (each lane
// holds 128 / LPR of the row's elements as float4s, lane l of a row group taking float4 l, l + LPR, ...), 32 / LPR
// row groups side by side; WARPS warps per block, independent of each other. PER_ROW = 0: every row's reductions,
// then every row's store; PER_ROW = 1: each row reduced and stored before the next row's reductions.
//     u     = S @ k,  sq = S @ q          (xor-shuffle all-reduces over the LPR lanes of a row: log2(LPR) steps)
//     delta = beta * (v - g * u)
//     S_new = g * S + delta outer k       (stored as soon as it is formed)
//     out   = scale * (g * sq + delta * (k . q))        OUT_FROM_OLD = 1
//           = scale * (S_new @ q)                       OUT_FROM_OLD = 0 (a second all-reduce, after the store)
// bf16 is read and written as raw 16-bit values (round to nearest even on the output).

typedef unsigned short bf16_t;

__device__ __forceinline__ float bf2f(bf16_t x) { return __uint_as_float(((unsigned)x) << 16); }

__device__ __forceinline__ bf16_t f2bf(float f) {
    unsigned u = __float_as_uint(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) return (bf16_t)((u >> 16) | 0x40u);  // NaN stays NaN
    u += 0x7fffu + ((u >> 16) & 1u);
    return (bf16_t)(u >> 16);
}

__device__ __forceinline__ float dot4(float4 s, float4 w) { return s.x * w.x + s.y * w.y + s.z * w.z + s.w * w.w; }

__device__ __forceinline__ float4 bf4(uint2 p) {
    return make_float4(bf2f((bf16_t)(p.x & 0xffffu)), bf2f((bf16_t)(p.x >> 16)),
                       bf2f((bf16_t)(p.y & 0xffffu)), bf2f((bf16_t)(p.y >> 16)));
}

// The state's load and store, plain or with the streaming (evict-first) cache policy. Inline PTX: it needs no header.
template <int CS>
__device__ __forceinline__ float4 load_state(const float4* p) {
    if (!CS) return *p;
    float4 r;
    asm("ld.global.cs.v4.f32 {%0, %1, %2, %3}, [%4];" : "=f"(r.x), "=f"(r.y), "=f"(r.z), "=f"(r.w) : "l"(p));
    return r;
}

template <int CS>
__device__ __forceinline__ void store_state(float4* p, float4 t) {
    if (!CS) {
        *p = t;
        return;
    }
    asm volatile("st.global.cs.v4.f32 [%0], {%1, %2, %3, %4};" ::"l"(p), "f"(t.x), "f"(t.y), "f"(t.z), "f"(t.w)
                 : "memory");
}

// This lane's parts of S_r @ k (u) and, for the output from the old state, S_r @ q (sq).
template <int NV, int OUT_FROM_OLD>
__device__ __forceinline__ void row_partials(const float4 (&s)[NV], const float4 (&kk)[NV], const float4 (&qq)[NV],
                                             float& u, float& sq) {
    u = 0.f;
    sq = 0.f;
#pragma unroll
    for (int j = 0; j < NV; ++j) {
        u += dot4(s[j], kk[j]);
        if (OUT_FROM_OLD) sq += dot4(s[j], qq[j]);
    }
}

template <int R, int LPR, int OUT_FROM_OLD, int PER_ROW, int LOAD_CS, int STORE_CS, int HAS_STATE>
__global__ void gdn_decode_cuda_hints(const bf16_t* __restrict__ q, const bf16_t* __restrict__ k,
                                const bf16_t* __restrict__ v, const float* __restrict__ state,
                                const float* __restrict__ A_log, const bf16_t* __restrict__ a,
                                const float* __restrict__ dt_bias, const bf16_t* __restrict__ b,
                                bf16_t* __restrict__ out, float* __restrict__ new_state, float scale,
                                int total_warps) {
    constexpr int D = 128, HV = 8, HQK = 4;
    constexpr int G = 32 / LPR;          // row groups per warp
    constexpr int RG = R / G;            // rows per row group (per lane)
    constexpr int NV = D / (4 * LPR);    // float4s per lane per row
    static_assert(G * LPR == 32 && RG * G == R && NV * 4 * LPR == D, "R, LPR: LPR divides 32, 32 / LPR divides R");

    const int lane = threadIdx.x & 31;
    const int warp = (int)((blockIdx.x * blockDim.x + threadIdx.x) >> 5);
    if (warp >= total_warps) return;
    const int bh = warp / (D / R);
    const int row0 = (warp % (D / R)) * R + (lane / LPR) * RG;
    const int l = lane % LPR;
    const int hv = bh % HV;
    const long long head = (long long)bh * D * D;

    float4 s[RG][NV];
    if (HAS_STATE) {
#pragma unroll
        for (int r = 0; r < RG; ++r)
#pragma unroll
            for (int j = 0; j < NV; ++j)
                s[r][j] = load_state<LOAD_CS>(
                    reinterpret_cast<const float4*>(state + head + (long long)(row0 + r) * D) + j * LPR + l);
    } else {
#pragma unroll
        for (int r = 0; r < RG; ++r)
#pragma unroll
            for (int j = 0; j < NV; ++j) s[r][j] = make_float4(0.f, 0.f, 0.f, 0.f);
    }

    const long long qk = (long long)((bh / HV) * HQK + hv / (HV / HQK)) * D;
    float4 kk[NV], qq[NV];
#pragma unroll
    for (int j = 0; j < NV; ++j) {
        kk[j] = bf4(reinterpret_cast<const uint2*>(k + qk)[j * LPR + l]);
        qq[j] = bf4(reinterpret_cast<const uint2*>(q + qk)[j * LPR + l]);
    }
    float vv[RG];
#pragma unroll
    for (int r = 0; r < RG; ++r) vv[r] = bf2f(v[(long long)bh * D + row0 + r]);

    const float x = bf2f(a[bh]) + dt_bias[hv];
    const float softplus_x = x > 20.f ? x : __logf(1.f + __expf(x));
    const float g = __expf(-__expf(A_log[hv]) * softplus_x);
    const float beta = 1.f / (1.f + __expf(-bf2f(b[bh])));

    float kq = 0.f;
    if (OUT_FROM_OLD) {  // k . q: depends on q and k only, reduced before any row
#pragma unroll
        for (int j = 0; j < NV; ++j) kq += dot4(kk[j], qq[j]);
#pragma unroll
        for (int off = LPR / 2; off > 0; off >>= 1) kq += __shfl_xor_sync(0xffffffffu, kq, off);
    }
    float u[RG], sq[RG];
    if (!PER_ROW) {
#pragma unroll
        for (int r = 0; r < RG; ++r) row_partials<NV, OUT_FROM_OLD>(s[r], kk, qq, u[r], sq[r]);
        // every row's all-reduces interleaved: one chain of log2(LPR) steps, then every row's store
#pragma unroll
        for (int off = LPR / 2; off > 0; off >>= 1)
#pragma unroll
            for (int r = 0; r < RG; ++r) {
                u[r] += __shfl_xor_sync(0xffffffffu, u[r], off);
                if (OUT_FROM_OLD) sq[r] += __shfl_xor_sync(0xffffffffu, sq[r], off);
            }
    }
#pragma unroll
    for (int r = 0; r < RG; ++r) {
        if (PER_ROW) {  // this row's reductions and store before the next row's: stores leave as rows arrive
            row_partials<NV, OUT_FROM_OLD>(s[r], kk, qq, u[r], sq[r]);
#pragma unroll
            for (int off = LPR / 2; off > 0; off >>= 1) {
                u[r] += __shfl_xor_sync(0xffffffffu, u[r], off);
                if (OUT_FROM_OLD) sq[r] += __shfl_xor_sync(0xffffffffu, sq[r], off);
            }
        }
        const float delta = beta * (vv[r] - g * u[r]);
        float4* dst = reinterpret_cast<float4*>(new_state + head + (long long)(row0 + r) * D);
        float acc = 0.f;
#pragma unroll
        for (int j = 0; j < NV; ++j) {
            float4 t = s[r][j];
            t.x = fmaf(g, t.x, delta * kk[j].x);
            t.y = fmaf(g, t.y, delta * kk[j].y);
            t.z = fmaf(g, t.z, delta * kk[j].z);
            t.w = fmaf(g, t.w, delta * kk[j].w);
            store_state<STORE_CS>(dst + j * LPR + l, t);
            if (!OUT_FROM_OLD) acc += dot4(t, qq[j]);
        }
        if (OUT_FROM_OLD) {
            sq[r] = scale * (g * sq[r] + delta * kq);
        } else {  // from the new state: a second all-reduce, after the row's store
#pragma unroll
            for (int off = LPR / 2; off > 0; off >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, off);
            sq[r] = scale * acc;
        }
        if (l == r % LPR) out[(long long)bh * D + row0 + r] = f2bf(sq[r]);  // lane r % LPR writes row r
    }
}
