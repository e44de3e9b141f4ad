package dev.floe.bench.harness;

import java.util.ArrayList;
import java.util.List;

/**
 * A plain-text table with aligned columns: text columns left-aligned, numeric ones right-aligned
 * (a column is numeric when its header is declared so).
 */
public final class TextTable {

    private final List<String> headers;
    private final boolean[] rightAligned;
    private final List<List<String>> rows = new ArrayList<>();

    /**
     * @param headers column titles; a title starting with {@code >} declares a right-aligned
     *                column (the {@code >} is not printed)
     */
    public TextTable(String... headers) {
        this.headers = new ArrayList<>();
        this.rightAligned = new boolean[headers.length];
        for (int i = 0; i < headers.length; i++) {
            rightAligned[i] = headers[i].startsWith(">");
            this.headers.add(rightAligned[i] ? headers[i].substring(1) : headers[i]);
        }
    }

    /** Adds a row; it must have one cell per column. */
    public TextTable row(String... cells) {
        if (cells.length != headers.size()) {
            throw new IllegalArgumentException(cells.length + " cells for " + headers.size() + " columns");
        }
        rows.add(List.of(cells));
        return this;
    }

    /** The table, each line indented by two spaces and ending with a newline. */
    public String render() {
        int[] width = new int[headers.size()];
        for (int c = 0; c < width.length; c++) {
            width[c] = headers.get(c).length();
            for (List<String> r : rows) width[c] = Math.max(width[c], r.get(c).length());
        }
        StringBuilder out = new StringBuilder();
        line(out, headers, width);
        List<String> rule = new ArrayList<>();
        for (int w : width) rule.add("-".repeat(w));
        line(out, rule, width);
        for (List<String> r : rows) line(out, r, width);
        return out.toString();
    }

    private void line(StringBuilder out, List<String> cells, int[] width) {
        StringBuilder l = new StringBuilder("  ");
        for (int c = 0; c < width.length; c++) {
            String s = cells.get(c);
            String pad = " ".repeat(width[c] - s.length());
            l.append(rightAligned[c] ? pad + s : s + pad);
            if (c < width.length - 1) l.append("  ");
        }
        out.append(l.toString().stripTrailing()).append('\n');
    }
}
