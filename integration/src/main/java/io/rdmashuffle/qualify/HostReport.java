/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.qualify;

import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

/**
 * What one host's checks found: a name for the report, the facts pairs are compared by ({@code
 * netdev.mtu}, {@code active_mtu}, {@code device}, ...) and the checks. Crosses from an agent to
 * its driver as properties text ({@code fact.NAME}, {@code check.N.FIELD}).
 */
record HostReport(String host, Map<String, String> facts, List<Check> checks) {
  String label() {
    String device = facts.get("device");
    return device == null ? host : host + " (" + device + ")";
  }

  boolean blocksVerbs() {
    return checks.stream().anyMatch(Check::blocksVerbs);
  }

  String text() {
    Properties p = new Properties();
    p.setProperty("host", host);
    facts.forEach((k, v) -> p.setProperty("fact." + k, v));
    Check.store(checks, p);
    StringWriter w = new StringWriter();
    try {
      p.store(w, "rdma-shuffle qualify host");
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
    return w.toString();
  }

  static HostReport parse(String text) throws IOException {
    Properties p = new Properties();
    p.load(new StringReader(text));
    Map<String, String> all = new TreeMap<>();
    for (String k : p.stringPropertyNames()) {
      all.put(k, p.getProperty(k));
    }
    if (!all.containsKey("host")) {
      throw new IOException("not a host report: " + text.lines().limit(3).toList());
    }
    Map<String, String> facts = new LinkedHashMap<>();
    all.forEach(
        (k, v) -> {
          if (k.startsWith("fact.")) {
            facts.put(k.substring(5), v);
          }
        });
    return new HostReport(all.get("host"), facts, new ArrayList<>(Check.load(all)));
  }
}
