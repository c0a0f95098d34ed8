/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.qualify;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * One check of a host or of a pair of hosts: what was found, the verdict, and for anything but a
 * pass the setting to change, in words an operator acts on.
 *
 * @param scope the host ({@code 198.18.100.1 (rxe0)}) or the pair ({@code rxe1 -> rxe0})
 * @param name the check ({@code memlock}, {@code MTU end to end}, ...)
 * @param found what was measured or read
 * @param advice what to do; empty for a pass
 * @param blocksVerbs whether, as found, verbs can't be used (the run's exit status is then 1)
 */
public record Check(
    String scope, String name, Verdict verdict, String found, String advice, boolean blocksVerbs) {

  public static Check pass(String scope, String name, String found) {
    return new Check(scope, name, Verdict.PASS, found, "", false);
  }

  public static Check info(String scope, String name, String found) {
    return new Check(scope, name, Verdict.INFO, found, "", false);
  }

  public static Check warn(String scope, String name, String found, String advice) {
    return new Check(scope, name, Verdict.WARN, found, advice, false);
  }

  public static Check skip(String scope, String name, String found, String advice) {
    return new Check(scope, name, Verdict.SKIP, found, advice, false);
  }

  /** A failure that leaves verbs usable (a tool misconfigured, a fabric setting to fix). */
  public static Check fail(String scope, String name, String found, String advice) {
    return new Check(scope, name, Verdict.FAIL, found, advice, false);
  }

  /** A failure under which verbs can't be used. */
  public static Check blocking(String scope, String name, String found, String advice) {
    return new Check(scope, name, Verdict.FAIL, found, advice, true);
  }

  /** Writes checks as properties (an agent's answer to its driver): {@code check.N.field}. */
  static void store(List<Check> checks, Properties p) {
    for (int i = 0; i < checks.size(); i++) {
      Check c = checks.get(i);
      String k = "check." + i + ".";
      p.setProperty(k + "scope", c.scope);
      p.setProperty(k + "name", c.name);
      p.setProperty(k + "verdict", c.verdict.name());
      p.setProperty(k + "found", c.found);
      p.setProperty(k + "advice", c.advice);
      p.setProperty(k + "blocksVerbs", Boolean.toString(c.blocksVerbs));
    }
  }

  /** Reads what {@link #store} wrote. */
  static List<Check> load(Map<String, String> p) {
    List<Check> out = new ArrayList<>();
    for (int i = 0; p.containsKey("check." + i + ".name"); i++) {
      String k = "check." + i + ".";
      out.add(
          new Check(
              p.get(k + "scope"),
              p.get(k + "name"),
              Verdict.valueOf(p.get(k + "verdict")),
              p.getOrDefault(k + "found", ""),
              p.getOrDefault(k + "advice", ""),
              Boolean.parseBoolean(p.get(k + "blocksVerbs"))));
    }
    return out;
  }
}
