/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.qualify;

import io.rdmashuffle.config.TransportKind;
import io.rdmashuffle.node.TransportSelector;
import io.rdmashuffle.transport.provider.Availability;
import java.util.List;

/**
 * What the transport's own probe says (the doctor's findings): our native library under DiSNI,
 * which registration served memory gets on the device (on-demand paging: the device's caps and
 * whether its on-demand READs return the right bytes), and which transport {@code auto} picks.
 */
final class NativeChecks {
  private final String scope;
  private final List<Check> checks;

  NativeChecks(String scope, List<Check> checks) {
    this.scope = scope;
    this.checks = checks;
  }

  /** Adds the checks for {@code device} (may be null) from what {@code choice} probed. */
  void add(TransportSelector.Choice choice, String device) {
    Availability verbs = choice.probes().get(TransportKind.VERBS);
    String library = finding(verbs, "native library: ");
    if (library == null || library.startsWith("unavailable")) {
      checks.add(
          Check.blocking(
              scope,
              "native library and DiSNI",
              library == null ? verbs.cause() : library,
              "The plugin jar carries libdisni.so for Linux x86_64 (built where rdma-core's headers"
                  + " exist); it needs rdma-core's libraries (Debian: apt-get install libibverbs1"
                  + " librdmacm1 ibverbs-providers) and the JVM option --add-exports"
                  + " java.base/sun.nio.ch=ALL-UNNAMED (Spark adds it)."));
    } else {
      checks.add(
          Check.pass(
              scope,
              "native library and DiSNI",
              library + "; DiSNI 2.1 (com.ibm.disni:disni:2.1) on it"));
    }
    if (device != null) {
      registration(finding(verbs, "served memory registration on " + device + ": "));
    }
    if (choice.kind() == TransportKind.VERBS && verbs.available()) {
      checks.add(Check.pass(scope, "transport", "auto picks verbs (" + choice.reason() + ")"));
    } else {
      checks.add(
          Check.blocking(
              scope,
              "transport",
              "auto picks "
                  + choice.kind().name().toLowerCase(java.util.Locale.ROOT)
                  + ": verbs "
                  + (verbs.available() ? "available" : "unavailable: " + verbs.cause()),
              "Fix the failed checks of this host; `bin/rdma-shuffle doctor` shows the same"
                  + " probe."));
    }
  }

  private void registration(String how) {
    String name = "on-demand paging";
    if (how == null) {
      checks.add(
          Check.skip(scope, name, "the device was not asked", "the native library did not load"));
    } else if (how.startsWith("on-demand paging")) {
      checks.add(Check.pass(scope, name, "served memory: " + how));
    } else if (how.contains("wrong bytes")) {
      checks.add(
          Check.warn(
              scope,
              name,
              "served memory: " + how,
              "Served files are pinned here, so serve.maxPinnedBytes (and memlock) bound what is"
                  + " served at once. The device's on-demand READs return wrong bytes: update its"
                  + " firmware and driver; on Soft-RoCE use a kernel, or an rdma_rxe, with the fix"
                  + " of its on-demand copy (integration/softroce/build-rxe-module.sh builds one"
                  + " for Debian's kernel). Never set verbs.registration=odp here."));
    } else if (how.startsWith("the transport would not start")) {
      checks.add(
          Check.blocking(
              scope,
              name,
              how,
              "Set verbs.registration=auto (on demand only where it works) or pinned."));
    } else if (how.contains("could not be checked")) {
      checks.add(
          Check.warn(
              scope,
              name,
              "served memory: " + how,
              "auto pins where on-demand READs can't be checked; size serve.maxPinnedBytes and"
                  + " memlock for pinned serving."));
    } else {
      checks.add(
          Check.info(
              scope,
              name,
              "served memory: "
                  + how
                  + " (serve.maxPinnedBytes and memlock bound what is served at once)"));
    }
  }

  private static String finding(Availability a, String prefix) {
    for (String f : a.findings()) {
      if (f.startsWith(prefix)) {
        return f.substring(prefix.length());
      }
    }
    return null;
  }
}
