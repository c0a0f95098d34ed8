/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.config;

import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * How the text of a setting becomes a typed value and back. One instance per value type; the parse
 * methods throw {@link IllegalArgumentException} with a message saying what was expected, which
 * {@link ConfigEntry} turns into a {@link ConfigException} naming key and value.
 */
public abstract class ConfigType<T> {
  private final String name;

  private ConfigType(String name) {
    this.name = name;
  }

  /** The type's name as the configuration page shows it. */
  public final String name() {
    return name;
  }

  abstract T parse(String raw);

  abstract String format(T value);

  abstract int compare(T a, T b);

  public static final ConfigType<Boolean> BOOLEAN =
      new ConfigType<>("boolean") {
        @Override
        Boolean parse(String raw) {
          String s = raw.trim().toLowerCase(Locale.ROOT);
          if (s.equals("true")) {
            return Boolean.TRUE;
          }
          if (s.equals("false")) {
            return Boolean.FALSE;
          }
          throw new IllegalArgumentException("expected true or false");
        }

        @Override
        String format(Boolean value) {
          return value.toString();
        }

        @Override
        int compare(Boolean a, Boolean b) {
          return a.compareTo(b);
        }
      };

  public static final ConfigType<Integer> INT =
      new ConfigType<>("int") {
        @Override
        Integer parse(String raw) {
          try {
            return Integer.valueOf(raw.trim());
          } catch (NumberFormatException e) {
            throw new IllegalArgumentException("expected a whole number");
          }
        }

        @Override
        String format(Integer value) {
          return value.toString();
        }

        @Override
        int compare(Integer a, Integer b) {
          return a.compareTo(b);
        }
      };

  public static final ConfigType<String> STRING =
      new ConfigType<>("string") {
        @Override
        String parse(String raw) {
          return raw.trim();
        }

        @Override
        String format(String value) {
          return value;
        }

        @Override
        int compare(String a, String b) {
          return a.compareTo(b);
        }
      };

  /**
   * A number of bytes: a plain number, or a number with a binary unit: {@code b, k, kb, m, mb, g,
   * gb, t, tb} (case-insensitive; 1k = 1024), as Spark's own size settings read.
   */
  public static final ConfigType<Long> BYTES =
      new ConfigType<>("bytes") {
        @Override
        Long parse(String raw) {
          String s = raw.trim().toLowerCase(Locale.ROOT);
          int i = 0;
          while (i < s.length() && Character.isDigit(s.charAt(i))) {
            i++;
          }
          if (i == 0) {
            throw new IllegalArgumentException("expected a size such as 4096, 64k, 16m or 1g");
          }
          long shift =
              switch (s.substring(i).trim()) {
                case "", "b" -> 0;
                case "k", "kb", "kib" -> 10;
                case "m", "mb", "mib" -> 20;
                case "g", "gb", "gib" -> 30;
                case "t", "tb", "tib" -> 40;
                default ->
                    throw new IllegalArgumentException(
                        "expected a size such as 4096, 64k, 16m or 1g (units b, k, m, g, t)");
              };
          long n;
          try {
            n = Long.parseLong(s.substring(0, i));
          } catch (NumberFormatException e) {
            throw new IllegalArgumentException("size does not fit in 64 bits");
          }
          if (n > (Long.MAX_VALUE >> shift)) {
            throw new IllegalArgumentException("size does not fit in 64 bits");
          }
          return n << shift;
        }

        @Override
        String format(Long value) {
          long v = value;
          String[] units = {"t", "g", "m", "k"};
          int[] shifts = {40, 30, 20, 10};
          for (int u = 0; u < units.length; u++) {
            long m = 1L << shifts[u];
            if (v != 0 && v % m == 0) {
              return (v / m) + units[u];
            }
          }
          return Long.toString(v);
        }

        @Override
        int compare(Long a, Long b) {
          return a.compareTo(b);
        }
      };

  /** A duration: a number with a unit {@code ms, s, min, h}; a plain number is milliseconds. */
  public static final ConfigType<Duration> DURATION =
      new ConfigType<>("duration") {
        @Override
        Duration parse(String raw) {
          String s = raw.trim().toLowerCase(Locale.ROOT);
          int i = 0;
          while (i < s.length() && Character.isDigit(s.charAt(i))) {
            i++;
          }
          if (i == 0 || i > 15) {
            throw new IllegalArgumentException("expected a duration such as 500ms, 30s or 2min");
          }
          long n = Long.parseLong(s.substring(0, i));
          return switch (s.substring(i).trim()) {
            case "", "ms" -> Duration.ofMillis(n);
            case "s" -> Duration.ofSeconds(n);
            case "m", "min" -> Duration.ofMinutes(n);
            case "h" -> Duration.ofHours(n);
            default ->
                throw new IllegalArgumentException(
                    "expected a duration such as 500ms, 30s or 2min (units ms, s, min, h)");
          };
        }

        @Override
        String format(Duration value) {
          long ms = value.toMillis();
          if (ms != 0 && ms % 3_600_000 == 0) {
            return ms / 3_600_000 + "h";
          }
          if (ms != 0 && ms % 60_000 == 0) {
            return ms / 60_000 + "min";
          }
          if (ms != 0 && ms % 1000 == 0) {
            return ms / 1000 + "s";
          }
          return ms + "ms";
        }

        @Override
        int compare(Duration a, Duration b) {
          return a.compareTo(b);
        }
      };

  /** One of an enum's constants, written in lower case, read case-insensitively. */
  public static <E extends Enum<E>> ConfigType<E> oneOf(Class<E> type) {
    E[] constants = type.getEnumConstants();
    String choices =
        Arrays.stream(constants)
            .map(c -> c.name().toLowerCase(Locale.ROOT))
            .collect(Collectors.joining(" | "));
    return new ConfigType<>(choices) {
      @Override
      E parse(String raw) {
        String s = raw.trim();
        for (E c : constants) {
          if (c.name().equalsIgnoreCase(s)) {
            return c;
          }
        }
        throw new IllegalArgumentException("expected one of " + choices);
      }

      @Override
      String format(E value) {
        return value.name().toLowerCase(Locale.ROOT);
      }

      @Override
      int compare(E a, E b) {
        return a.compareTo(b);
      }
    };
  }
}
