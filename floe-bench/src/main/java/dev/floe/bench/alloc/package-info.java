/**
 * The {@code alloc} suite: throughput and memory release of off-heap allocators.
 *
 * <p>Every implementation sits behind {@link dev.floe.bench.alloc.OffHeapAllocator}
 * ({@code alloc(slot, size)}, {@code write}, {@code free}), so the workload loops are the same
 * code for all of them. Address-based allocators return addresses or offsets as handles;
 * object-based ones keep their objects in an array at a slot the workload chooses (a ring
 * position) and return the slot. See {@link dev.floe.bench.alloc.AllocSuite} for the workloads,
 * ratios and goals.
 */
package dev.floe.bench.alloc;
