// The element-wise and row-wise steps of a Llama decoder layer (samples/llama/llama_layer.py,
// docs/llama.md), bf16 data with f32 arithmetic: RMSNorm, the rotary embedding of the QKV
// projection's output written into the queries and the key/value caches, the SiLU-gated
// product of the gate/up projection's output, the residual add, and the residual add with
// the RMSNorm after it in one pass. The GEMMs and the attention are samples/gemm/ and
// samples/attention/.
//
// Each is written at thread level (a block per row for RMSNorm, a thread per element or
// pair of elements for the others), so every target runs the same code; they move a few
// bytes per element, next to GEMMs that move the weights. heads_to_rows turns attention's
// [B, H, S, d] output into the output projection's rows.
//
//   croktilec -t cpu samples/llama/ops.co.cpp -o ops   (a library of __co__ functions)

// what tileflow code has no operator for, in the separate source form every target builds
__cok__ {
  extern "C" float llama_rsqrt(float x) { return 1.0f / sqrtf(x); }
  extern "C" float llama_silu(float x) { return x / (1.0f + expf(-x)); }
  extern "C" float llama_cos(float x) { return cosf(x); }
  extern "C" float llama_sin(float x) { return sinf(x); }
  // Hugging Face's inverse frequency of pair i: 1 / theta^(2i / d), in f32
  extern "C" float llama_inv_freq(float theta, int i, int d) { return 1.0f / powf(theta, (float)(2 * i) / (float)d); }
} // end of __cok__

#ifndef ROWS
#define ROWS 128   // threads per block of the row-wise and element-wise kernels
#endif

// out = x / sqrt(mean(x^2) + eps) * w per row: the mean in f32, the normalised row rounded
// to bf16 before the weight multiplies it (as Hugging Face's LlamaRMSNorm does). A block
// per row: each thread sums the squares of every ROWS-th element (adjacent threads read
// adjacent elements), the partial sums meet in shared memory (the second level starts
// after a block-wide barrier), and each thread adds them up and scales its elements.
__co__ auto rmsnorm(bf16 [M, D] x, bf16 [D] w, float eps) {
  bf16 [M, D] out;
  parallel m by M : block {
    shared f32 [ROWS] part;
    parallel t by ROWS : thread {
      mutable float ss = 0.0f;
      foreach k in [cdiv(D, ROWS)] {
        int i = k * ROWS + t;
        if (i < D) {
          float v = x.at(m, i);
          ss = ss + v * v;
        }
      }
      part.at(t) = ss;
    }
    parallel t by ROWS : thread {
      mutable float total = 0.0f;
      foreach u in [ROWS] {
        total = total + part.at(u);
      }
      mutable float r = call llama_rsqrt(total / D + eps);
      foreach k in [cdiv(D, ROWS)] {
        int i = k * ROWS + t;
        if (i < D) {
          bf16 n = x.at(m, i) * r;
          out.at(m, i) = w.at(i) * n;
        }
      }
    }
  }
  return out;
}

// The residual add and the RMSNorm after it in one pass: r = x + a (rounded to bf16, as
// Hugging Face adds in bf16) and n = RMSNorm(r) * w, both written (r is the next residual).
// As rmsnorm, a block per row; each thread reads back only the elements it wrote.
__co__ void add_rmsnorm(bf16 [M, D] x, bf16 [M, D] a, bf16 [D] w, float eps, bf16 [M, D] r, bf16 [M, D] n) {
  parallel m by M : block {
    shared f32 [ROWS] part;
    parallel t by ROWS : thread {
      mutable float ss = 0.0f;
      foreach k in [cdiv(D, ROWS)] {
        int i = k * ROWS + t;
        if (i < D) {
          bf16 v = x.at(m, i) + a.at(m, i);
          r.at(m, i) = v;
          ss = ss + v * v;
        }
      }
      part.at(t) = ss;
    }
    parallel t by ROWS : thread {
      mutable float total = 0.0f;
      foreach u in [ROWS] {
        total = total + part.at(u);
      }
      mutable float inv = call llama_rsqrt(total / D + eps);
      foreach k in [cdiv(D, ROWS)] {
        int i = k * ROWS + t;
        if (i < D) {
          bf16 h = r.at(m, i) * inv;
          n.at(m, i) = w.at(i) * h;
        }
      }
    }
  }
}

// the pair (i, i + d/2) of head column H of qkv, rotated by position start + s, into LO, HI
// (the `if` always holds, by the assert below: it gives each expansion's locals a scope of
// their own)
#define ROTATE(LO, HI, H)                                            \
  if (start + s < CAP) {                                             \
  float x0 = qkv.at(b, s, (H) * HDIM + i);                           \
  float x1 = qkv.at(b, s, (H) * HDIM + hd + i);                      \
  mutable float inv = call llama_inv_freq(theta, i, HDIM);           \
  float a = (start + s) * inv;                                       \
  mutable float c = call llama_cos(a);                               \
  mutable float sn = call llama_sin(a);                              \
  LO = x0 * c - x1 * sn;                                             \
  HI = x1 * c + x0 * sn;                                             \
  }

// The rotary embedding (rotate_half form: element i < d/2 pairs with i + d/2) of the QKV
// projection's output qkv [B, S, (HQ + 2 HKV) HDIM] (the query heads, then the key heads,
// then the value heads), at positions start..start+S-1: the queries into q [B, HQ, S, HDIM],
// the keys into kc and the values (unrotated) into vc, [B, HKV, CAP, HDIM] caches, at rows
// start..start+S-1. Angles in f32 as Hugging Face computes them (position * inv_freq).
__co__ void rope_cache(bf16 [B, S, N] qkv, bf16 [B, HQ, S, HDIM] q, bf16 [B, HKV, CAP, HDIM] kc,
                       bf16 [B, HKV, CAP, HDIM] vc, int start, float theta) {
  assert(N == (HQ + 2 * HKV) * HDIM, "rope_cache: qkv must hold HQ + 2 HKV heads of HDIM");
  assert(start >= 0 && start + S <= CAP, "rope_cache: positions past the cache");
  int hd = HDIM / 2;   // the pair of element i is i + hd
  // a launch per destination (the index checks then need no bounds of a branch)
  parallel {b, s, h} by [B, S, HQ] : block {
    parallel i by HDIM / 2 : thread {
      ROTATE(q.at(b, h, s, i), q.at(b, h, s, hd + i), h)
    }
  }
  parallel {b, s, h} by [B, S, HKV] : block {
    parallel i by HDIM / 2 : thread {
      ROTATE(kc.at(b, h, start + s, i), kc.at(b, h, start + s, hd + i), HQ + h)
    }
  }
  parallel {b, s, h} by [B, S, HKV] : block {
    parallel i by HDIM / 2 : thread {
      vc.at(b, h, start + s, i) = qkv.at(b, s, (HQ + HKV + h) * HDIM + i);
      vc.at(b, h, start + s, hd + i) = qkv.at(b, s, (HQ + HKV + h) * HDIM + hd + i);
    }
  }
}

// silu(g) * u of the gate/up projection's output gu [M, 2F] (the gate's F columns, then the
// up's), in f32, rounded once
__co__ void silu_mul(bf16 [M, N2] gu, bf16 [M, F] out) {
  assert(N2 == 2 * F, "silu_mul: gu must hold the gate's and the up projection's F columns");
  parallel {m, fb} by [M, cdiv(F, ROWS)] : block {
    parallel t by ROWS : thread {
      int f = fb * ROWS + t;
      if (f < F) {
        mutable float g = call llama_silu(gu.at(m, f));
        out.at(m, f) = g * gu.at(m, F + f);
      }
    }
  }
}

// the residual add, a + b
__co__ auto add(bf16 [M, D] a, bf16 [M, D] b) {
  bf16 [M, D] out;
  parallel {m, db} by [M, cdiv(D, ROWS)] : block {
    parallel t by ROWS : thread {
      int i = db * ROWS + t;
      if (i < D) {
        float s = a.at(m, i) + b.at(m, i);
        out.at(m, i) = s;
      }
    }
  }
  return out;
}

// attention's output [B, H, S, HD] as the rows of the output projection's input [B, S, H HD]
__co__ auto heads_to_rows(bf16 [B, H, S, HD] x) {
  bf16 [B, S, H * HD] out;
  parallel {b, s, h} by [B, S, H] : block {
    parallel i by HD : thread {
      out.at(b, s, h * HD + i) = x.at(b, h, s, i);
    }
  }
  return out;
}
