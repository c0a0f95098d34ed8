/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.tpcds;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Command-line options of the form {@code --name value} (or {@code --name=value}); a name may
 * repeat ({@code --conf a=1 --conf b=2}). Every option read is checked off, and {@link #done()}
 * rejects the ones nobody asked for, naming them.
 */
public final class Args {
  private final Map<String, List<String>> values = new LinkedHashMap<>();
  private final List<String> used = new ArrayList<>();

  public Args(String[] args, int from) {
    for (int i = from; i < args.length; i++) {
      String a = args[i];
      if (!a.startsWith("--")) {
        throw new IllegalArgumentException(
            "unexpected argument '" + a + "' (options are --name value)");
      }
      String name;
      String value;
      int eq = a.indexOf('=');
      if (eq > 0) { // --name=value (names never hold '=')
        name = a.substring(2, eq);
        value = a.substring(eq + 1);
      } else if (i + 1 < args.length) {
        name = a.substring(2);
        value = args[++i];
      } else {
        throw new IllegalArgumentException("option " + a + " needs a value");
      }
      values.computeIfAbsent(name, k -> new ArrayList<>()).add(value);
    }
  }

  public String get(String name, String fallback) {
    used.add(name);
    List<String> v = values.get(name);
    return v == null ? fallback : v.get(v.size() - 1);
  }

  public String require(String name) {
    String v = get(name, null);
    if (v == null) {
      throw new IllegalArgumentException("option --" + name + " is required");
    }
    return v;
  }

  public int getInt(String name, int fallback) {
    String v = get(name, null);
    try {
      return v == null ? fallback : Integer.parseInt(v.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("--" + name + "=" + v + ": not an integer");
    }
  }

  public long getLong(String name, long fallback) {
    String v = get(name, null);
    try {
      return v == null ? fallback : Long.parseLong(v.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("--" + name + "=" + v + ": not an integer");
    }
  }

  public double getDouble(String name, double fallback) {
    String v = get(name, null);
    try {
      return v == null ? fallback : Double.parseDouble(v.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("--" + name + "=" + v + ": not a number");
    }
  }

  public List<String> all(String name) {
    used.add(name);
    return values.getOrDefault(name, List.of());
  }

  /** {@code key=value} options as a map, in order. */
  public Map<String, String> pairs(String name) {
    Map<String, String> out = new LinkedHashMap<>();
    for (String kv : all(name)) {
      int eq = kv.indexOf('=');
      if (eq <= 0) {
        throw new IllegalArgumentException("--" + name + " " + kv + ": expected key=value");
      }
      out.put(kv.substring(0, eq), kv.substring(eq + 1));
    }
    return out;
  }

  /** Fails on options nobody read. */
  public void done() {
    List<String> unknown = new ArrayList<>(values.keySet());
    unknown.removeAll(used);
    if (!unknown.isEmpty()) {
      throw new IllegalArgumentException("unknown option(s): --" + String.join(", --", unknown));
    }
  }
}
