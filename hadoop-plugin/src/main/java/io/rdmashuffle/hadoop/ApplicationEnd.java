/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.hadoop;

import io.rdmashuffle.metrics.Refusal;
import io.rdmashuffle.node.NodeRuntime;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a NodeManager service tells about itself once an application ended and was withdrawn:
 * whether it is still admitted (1 or 0), the map outputs and regions still registered (of every
 * application), the READs served and outputs located so far, and what was refused so far
 * (handshakes that proved no secret, locates over the shuffle port that proved none, READs of
 * regions the peer's application may not read). The services log it, so an operator, or a test,
 * sees that an application's registrations went with it.
 */
public final class ApplicationEnd {
  private ApplicationEnd() {}

  public static Map<String, Long> of(NodeRuntime r, String application) {
    Map<String, Long> m = new LinkedHashMap<>();
    m.put("stillAdmitted", r.catalog().isAdmitted(application) ? 1L : 0L);
    m.put("registeredOutputs", (long) r.catalog().registeredOutputs());
    m.put("registeredRegions", r.metrics().memory().registeredRegions());
    m.put("readsServed", r.metrics().readsServed());
    m.put("bytesServed", r.metrics().bytesServed());
    m.put("located", r.catalog().metrics().located());
    // what was refused to whoever did not prove a secret, or proved another application's
    m.put("refusedHandshakes", r.metrics().refusals(Refusal.HANDSHAKE_FAILED));
    m.put("refusedLocates", r.metrics().refusals(Refusal.LOCATE_UNAUTHENTICATED));
    m.put("refusedReads", r.metrics().refusals(Refusal.READ_REFUSED));
    return m;
  }
}
