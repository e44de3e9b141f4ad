package dev.floe.bench.somar;

import dev.floe.bench.harness.Labels;

import java.util.List;

/**
 * The six workloads of BENCHMARKS.md: a structure and an operation mix. Keys are drawn
 * uniformly from the structure's key range, twice its initial size, so about half of the puts
 * insert and half of the deletes find their key, and the size stays near its initial value.
 */
enum Workload {
    LL_WRITE_HEAVY(Structure.LL, Mix.WRITE_HEAVY),
    LL_READ_HEAVY(Structure.LL, Mix.READ_HEAVY),
    LL_READ_WRITE(Structure.LL, Mix.READ_WRITE),
    SL_WRITE_HEAVY(Structure.SL, Mix.WRITE_HEAVY),
    SL_READ_HEAVY(Structure.SL, Mix.READ_HEAVY),
    SL_READ_WRITE(Structure.SL, Mix.READ_WRITE);

    /** Percentages of puts and deletes; the rest are gets. */
    enum Mix {
        WRITE_HEAVY("write-heavy", 50, 50),
        READ_HEAVY("read-heavy", 5, 5),
        READ_WRITE("read-write", 25, 25);

        final String label;
        final int putPercent;
        final int deletePercent;

        Mix(String label, int putPercent, int deletePercent) {
            this.label = label;
            this.putPercent = putPercent;
            this.deletePercent = deletePercent;
        }

        int getPercent() {
            return 100 - putPercent - deletePercent;
        }
    }

    final Structure structure;
    final Mix mix;
    private final String label;

    Workload(Structure structure, Mix mix) {
        this.structure = structure;
        this.mix = mix;
        this.label = structure.prefix() + "-" + mix.label;
    }

    /** The fixed name, e.g. {@code ll-read-write}. */
    String label() {
        return label;
    }

    static List<String> labels() {
        return Labels.of(values(), Workload::label);
    }

    static Workload byLabel(String label) {
        return Labels.find(values(), Workload::label, label, "somar has no workload");
    }
}
