/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.mapoutput;

import io.rdmashuffle.config.TransportKind;
import io.rdmashuffle.transport.PeerAddress;
import java.util.Locale;

/**
 * Says who serves a map output and over which transport, in the small text an engine carries with
 * the map's status (Spark: {@code BlockManagerId.topologyInfo}). It is the same for every output of
 * one serving process, so the engine sees one location per process (locality and batching work as
 * with the stock shuffle), and it holds nothing secret: a reader asks the owner where to READ
 * ({@link LocateRequest}) over an authenticated connection.
 *
 * <pre>
 *   rdma-shuffle/2 &lt;transport&gt; &lt;port&gt; &lt;host&gt;       e.g.  rdma-shuffle/2 verbs 41234 node7.example
 * </pre>
 *
 * The host comes last so that an IPv6 address needs no quoting.
 */
public record OwnerMarker(TransportKind transport, PeerAddress address) {
  public static final String PREFIX = "rdma-shuffle/2 ";

  public OwnerMarker {
    if (transport == TransportKind.AUTO) {
      throw new IllegalArgumentException("transport=auto: a marker names the transport that runs");
    }
  }

  public String toText() {
    return PREFIX
        + transport.name().toLowerCase(Locale.ROOT)
        + " "
        + address.port()
        + " "
        + address.host();
  }

  /** Whether {@code text} claims to be a marker of ours (of this or another version). */
  public static boolean isOurs(String text) {
    return text != null && text.startsWith("rdma-shuffle/");
  }

  /**
   * Parses a marker.
   *
   * @throws IllegalArgumentException naming what is wrong, when it is not a marker of this version
   */
  public static OwnerMarker parse(String text) {
    if (text == null || !text.startsWith(PREFIX)) {
      throw new IllegalArgumentException(
          "owner marker '"
              + text
              + "': does not start with '"
              + PREFIX.trim()
              + "' (another version of rdma-shuffle, or not ours)");
    }
    String[] parts = text.substring(PREFIX.length()).split(" ", 3);
    if (parts.length != 3) {
      throw new IllegalArgumentException(
          "owner marker '" + text + "': needs transport, port, host");
    }
    TransportKind kind;
    try {
      kind = TransportKind.valueOf(parts[0].toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("owner marker transport=" + parts[0] + ": unknown", e);
    }
    int port;
    try {
      port = Integer.parseInt(parts[1]);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("owner marker port=" + parts[1] + ": not a number", e);
    }
    return new OwnerMarker(kind, new PeerAddress(parts[2], port));
  }
}
