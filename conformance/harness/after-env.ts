// Per-file hooks for conformance tests; the engine harness registers its checks here.
export {};
