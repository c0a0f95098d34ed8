/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.handshake;

import io.rdmashuffle.transport.handshake.Handshake.Refused;
import io.rdmashuffle.transport.handshake.Handshake.Refused.Reason;
import java.nio.ByteBuffer;

/**
 * One side of {@link HandshakeLayout} as a state machine that never blocks, the part both sides
 * share: send {@link #out()}, fill {@link #in()}, call {@link #received()}, until {@link #done()}
 * or a {@link #refusal()}; a server side that {@link #verified()} its client waits for the caller's
 * {@link #accept()} (or its own refusal of a busy server) first. After a refusal the caller sends
 * what {@link #out()} still holds, best effort, and closes. Both drivers run it this way: {@link
 * Handshake#run} on a blocking channel, the connection server's I/O threads as bytes arrive. One
 * per connection attempt, on one thread at a time.
 */
public abstract sealed class HandshakeSide permits ClientHandshake, ServerHandshake {
  static final ByteBuffer NOTHING = ByteBuffer.allocate(0);

  ByteBuffer in;
  ByteBuffer out = NOTHING;
  private Refused refusal;
  private Handshake.Result result;

  HandshakeSide(ByteBuffer in) {
    this.in = in;
  }

  /** Bytes to send now (possibly none). */
  public final ByteBuffer out() {
    return out;
  }

  /** The buffer to fill before the next {@link #received()}; null when nothing is to be read. */
  public final ByteBuffer in() {
    return refusal == null && result == null && !verified() ? in : null;
  }

  /** The peer proved the secret and the caller decides: {@link #accept()} or a refusal. */
  public boolean verified() {
    return false;
  }

  /** Ends a {@link #verified()} handshake: the connection is authenticated. */
  public void accept() {
    throw new IllegalStateException("nothing to accept on the " + side() + " side");
  }

  public final boolean done() {
    return result != null;
  }

  /** What the finished handshake established, or null. */
  public final Handshake.Result result() {
    return result;
  }

  /** Why the handshake failed, or null. */
  public final Refused refusal() {
    return refusal;
  }

  /** {@link #in()} is full: takes the next step. */
  public final void received() {
    in.flip();
    try {
      step(in);
    } catch (IllegalArgumentException e) {
      refuse(
          e.getMessage().startsWith("magic=") ? Reason.BAD_MAGIC : Reason.MALFORMED,
          side().equals("client")
              ? "peer is not an rdma-shuffle server of this version (" + e.getMessage() + ")"
              : "client sent a malformed HELLO: " + e.getMessage(),
          NOTHING);
    }
  }

  /** The peer closed the connection before the handshake finished. */
  public abstract void hungUp();

  /** Takes the step that {@code in} (flipped, full) completes. */
  abstract void step(ByteBuffer in);

  /** "client" or "server". */
  abstract String side();

  final void refuse(Reason reason, String message, ByteBuffer reply) {
    refusal = new Refused(reason, message);
    out = reply;
  }

  /** Both sides proved the secret: the session key of these nonces. */
  final void established(
      String application,
      Purpose purpose,
      byte[] secret,
      byte[] clientNonce,
      byte[] serverNonce,
      byte[] app) {
    result =
        new Handshake.Result(
            application,
            purpose,
            Handshake.proof(
                secret, Handshake.SESSION_LABEL, clientNonce, serverNonce, purpose, app));
  }
}
