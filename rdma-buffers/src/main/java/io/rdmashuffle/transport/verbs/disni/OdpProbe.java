/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.verbs.disni;

import io.rdmashuffle.config.VerbsRegistration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;

/**
 * For the doctor ({@code VerbsTransportProvider.probe}), inside the DiSNI class loader: for each
 * RDMA device this process can open, which registration served memory would get under the given
 * {@code verbs.registration} and why (or why the transport would not start).
 */
public final class OdpProbe implements Function<String, Map<String, String>> {
  /**
   * @param setting the value of {@code verbs.registration} ({@code auto}, {@code pinned}, ...)
   */
  @Override
  public Map<String, String> apply(String setting) {
    VerbsRegistration mode = VerbsRegistration.valueOf(setting);
    Map<String, String> out = new LinkedHashMap<>();
    String[] devices;
    try {
      devices = NativeExtras.deviceOdpCaps(mode != VerbsRegistration.PINNED);
    } catch (java.io.IOException e) {
      out.put("devices", "could not be listed: " + e.getMessage());
      return out;
    }
    for (String d : devices) {
      // name=caps, or name=caps;check where the device reports RC READ on demand
      int semi = d.indexOf(';');
      String head = semi < 0 ? d : d.substring(0, semi);
      String check = semi < 0 ? null : d.substring(semi + 1);
      int eq = head.lastIndexOf('=');
      String name = head.substring(0, eq);
      long caps = Long.parseLong(head.substring(eq + 1));
      try {
        out.put(name, OdpSupport.decide(mode, name, caps, check, "verbs.registration").describe());
      } catch (IllegalStateException e) {
        out.put(name, "the transport would not start: " + e.getMessage());
      }
    }
    return out;
  }
}
