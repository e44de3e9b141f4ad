package dev.floe.bench.harness;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A minimal JSON writer and reader for the benchmark report and the worker protocol.
 *
 * <p>The value model is plain Java: {@link Map} (written in iteration order, so use
 * {@link LinkedHashMap} to fix key order), {@link List}, {@link String}, {@link Number},
 * {@link Boolean} and {@code null}. Integral doubles are written without a fraction
 * ({@code 3.0} becomes {@code 3}); NaN and infinities, which JSON cannot express, become
 * {@code null}. The reader returns {@code Long} for integers that fit, {@code Double} for every
 * other number, {@code LinkedHashMap} for objects and {@code ArrayList} for arrays.
 */
public final class Json {

    private Json() {}

    /** One line of JSON, as the worker protocol needs. */
    public static String compact(Object value) {
        StringBuilder out = new StringBuilder();
        write(value, out, -1, 0);
        return out.toString();
    }

    /** Indented JSON with a trailing newline, as the report files use. */
    public static String pretty(Object value) {
        StringBuilder out = new StringBuilder();
        write(value, out, 2, 0);
        return out.append('\n').toString();
    }

    /**
     * Parses one JSON value.
     *
     * @throws IllegalArgumentException if the text is not exactly one JSON value
     */
    public static Object parse(String text) {
        Reader r = new Reader(text);
        Object value = r.value();
        r.skipSpace();
        if (r.pos != text.length()) throw r.error("trailing characters");
        return value;
    }

    /** Parses a JSON object; fails if the text holds any other kind of value. */
    @SuppressWarnings("unchecked")
    public static Map<String, Object> parseObject(String text) {
        if (parse(text) instanceof Map<?, ?> m) return (Map<String, Object>) m;
        throw new IllegalArgumentException("expected a JSON object: " + abbreviate(text));
    }

    private static void write(Object v, StringBuilder out, int indent, int depth) {
        switch (v) {
            case null -> out.append("null");
            case String s -> quote(s, out);
            case Boolean b -> out.append(b);
            case Double d -> number(d, out);
            case Float f -> number(f.doubleValue(), out);
            case Number n -> out.append(n.longValue());
            case Map<?, ?> m -> {
                out.append('{');
                Iterator<? extends Map.Entry<?, ?>> it = m.entrySet().iterator();
                while (it.hasNext()) {
                    Map.Entry<?, ?> e = it.next();
                    newline(out, indent, depth + 1);
                    quote(String.valueOf(e.getKey()), out);
                    out.append(indent < 0 ? ":" : ": ");
                    write(e.getValue(), out, indent, depth + 1);
                    if (it.hasNext()) out.append(',');
                }
                if (!m.isEmpty()) newline(out, indent, depth);
                out.append('}');
            }
            case Iterable<?> list -> {
                out.append('[');
                Iterator<?> it = list.iterator();
                boolean any = it.hasNext();
                while (it.hasNext()) {
                    newline(out, indent, depth + 1);
                    write(it.next(), out, indent, depth + 1);
                    if (it.hasNext()) out.append(',');
                }
                if (any) newline(out, indent, depth);
                out.append(']');
            }
            default -> throw new IllegalArgumentException("not a JSON value: " + v.getClass().getName());
        }
    }

    private static void number(double d, StringBuilder out) {
        if (!Double.isFinite(d)) {
            out.append("null");
        } else if (d == Math.rint(d) && Math.abs(d) < 1e15) {
            out.append((long) d);
        } else {
            out.append(d);
        }
    }

    private static void newline(StringBuilder out, int indent, int depth) {
        if (indent < 0) return;
        out.append('\n');
        out.repeat(' ', indent * depth);
    }

    private static void quote(String s, StringBuilder out) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20) out.append(String.format("\\u%04x", (int) c));
                    else out.append(c);
                }
            }
        }
        out.append('"');
    }

    private static String abbreviate(String s) {
        return s.length() <= 80 ? s : s.substring(0, 80) + "…";
    }

    /** Recursive-descent reader over one string. */
    private static final class Reader {
        private final String s;
        private int pos;

        Reader(String s) {
            this.s = s;
        }

        Object value() {
            skipSpace();
            if (pos >= s.length()) throw error("unexpected end");
            char c = s.charAt(pos);
            return switch (c) {
                case '{' -> object();
                case '[' -> array();
                case '"' -> string();
                case 't' -> literal("true", Boolean.TRUE);
                case 'f' -> literal("false", Boolean.FALSE);
                case 'n' -> literal("null", null);
                default -> number();
            };
        }

        private Map<String, Object> object() {
            Map<String, Object> m = new LinkedHashMap<>();
            pos++; // '{'
            skipSpace();
            if (peek() == '}') {
                pos++;
                return m;
            }
            while (true) {
                skipSpace();
                if (peek() != '"') throw error("expected a key");
                String key = string();
                skipSpace();
                expect(':');
                m.put(key, value());
                skipSpace();
                if (peek() == ',') {
                    pos++;
                } else {
                    expect('}');
                    return m;
                }
            }
        }

        private List<Object> array() {
            List<Object> list = new ArrayList<>();
            pos++; // '['
            skipSpace();
            if (peek() == ']') {
                pos++;
                return list;
            }
            while (true) {
                list.add(value());
                skipSpace();
                if (peek() == ',') {
                    pos++;
                } else {
                    expect(']');
                    return list;
                }
            }
        }

        private String string() {
            StringBuilder b = new StringBuilder();
            pos++; // opening quote
            while (true) {
                if (pos >= s.length()) throw error("unterminated string");
                char c = s.charAt(pos++);
                if (c == '"') return b.toString();
                if (c != '\\') {
                    b.append(c);
                    continue;
                }
                if (pos >= s.length()) throw error("unterminated escape");
                char e = s.charAt(pos++);
                switch (e) {
                    case '"', '\\', '/' -> b.append(e);
                    case 'b' -> b.append('\b');
                    case 'f' -> b.append('\f');
                    case 'n' -> b.append('\n');
                    case 'r' -> b.append('\r');
                    case 't' -> b.append('\t');
                    case 'u' -> {
                        if (pos + 4 > s.length()) throw error("short \\u escape");
                        b.append((char) Integer.parseInt(s.substring(pos, pos + 4), 16));
                        pos += 4;
                    }
                    default -> throw error("bad escape \\" + e);
                }
            }
        }

        private Object number() {
            int start = pos;
            while (pos < s.length() && "+-0123456789.eE".indexOf(s.charAt(pos)) >= 0) pos++;
            String t = s.substring(start, pos);
            if (t.isEmpty()) throw error("unexpected character '" + s.charAt(start) + "'");
            try {
                if (t.indexOf('.') < 0 && t.indexOf('e') < 0 && t.indexOf('E') < 0) {
                    try {
                        return Long.parseLong(t);
                    } catch (NumberFormatException tooBig) {
                        return Double.parseDouble(t);
                    }
                }
                return Double.parseDouble(t);
            } catch (NumberFormatException e) {
                throw error("bad number '" + t + "'");
            }
        }

        private Object literal(String word, Object value) {
            if (!s.startsWith(word, pos)) throw error("unexpected token");
            pos += word.length();
            return value;
        }

        private void expect(char c) {
            if (peek() != c) throw error("expected '" + c + "'");
            pos++;
        }

        private char peek() {
            return pos < s.length() ? s.charAt(pos) : '\0';
        }

        void skipSpace() {
            while (pos < s.length() && Character.isWhitespace(s.charAt(pos))) pos++;
        }

        IllegalArgumentException error(String what) {
            return new IllegalArgumentException("JSON: " + what + " at offset " + pos + " in " + abbreviate(s));
        }
    }
}
