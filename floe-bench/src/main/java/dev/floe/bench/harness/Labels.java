package dev.floe.bench.harness;

import java.util.Arrays;
import java.util.List;
import java.util.function.Function;

/**
 * The fixed names of a suite's implementations and workloads, kept by enums: their list, and the
 * lookup by name with the one error message that lists the choices.
 */
public final class Labels {

    private Labels() {}

    /** The labels of {@code values}, in declaration order. */
    public static <E extends Enum<E>> List<String> of(E[] values, Function<E, String> label) {
        return Arrays.stream(values).map(label).toList();
    }

    /**
     * The constant labelled {@code wanted}.
     *
     * @param missing the start of the error message, e.g. {@code "map has no workload"}
     * @throws IllegalArgumentException {@code missing 'wanted'; choose from [labels]} if none is
     */
    public static <E extends Enum<E>> E find(E[] values, Function<E, String> label, String wanted, String missing) {
        for (E e : values) {
            if (label.apply(e).equals(wanted)) return e;
        }
        throw new IllegalArgumentException(missing + " '" + wanted + "'; choose from " + of(values, label));
    }
}
