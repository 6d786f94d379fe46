/* Kernels of the fault plugin (fault_plugin.c), built into a fatbinary that the plugin
 * loads with the CUDA driver API, so that they run in the harness's own context. Names
 * are extern "C" so that cuModuleGetFunction finds them unmangled. */

/* Stores through a pointer no allocation covers: an illegal address, which poisons the
 * context (every later call fails until the device is reset). */
extern "C" __global__ void fault_wild_store(unsigned long long address, int value) {
    if (blockIdx.x == 0 && threadIdx.x == 0) *reinterpret_cast<volatile int *>(address) = value;
}

static __device__ unsigned long long global_timer_ns() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

/* Spins for bound_ns, far past the harness's time limit in the drill, then traps: the
 * bound only guards the GPU should the process's end not stop the kernel. */
extern "C" __global__ void fault_spin(unsigned long long bound_ns) {
    unsigned long long start = global_timer_ns();
    while (global_timer_ns() - start < bound_ns) __nanosleep(100000);
    __trap();
}

/* The 64-bit sum of n u32 keys, plus 1: a wrong answer of the right shape. *result must
 * be zero before the launch; blockDim.x is a multiple of 32. */
extern "C" __global__ void fault_sum_plus_one(const unsigned *keys, unsigned long long n,
                                              unsigned long long *result) {
    unsigned long long sum = 0;
    unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride)
        sum += keys[i];
    for (int offset = 16; offset > 0; offset >>= 1)
        sum += __shfl_down_sync(0xffffffffu, sum, offset);
    if (blockIdx.x == 0 && threadIdx.x == 0) sum += 1;
    if ((threadIdx.x & 31) == 0) atomicAdd(result, sum);
}
