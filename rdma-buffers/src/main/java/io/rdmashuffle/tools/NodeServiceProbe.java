/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.tools;

import io.rdmashuffle.transport.handshake.Handshake;
import io.rdmashuffle.transport.handshake.Purpose;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.security.SecureRandom;

/**
 * Whether an rdma-shuffle connection server answers at an address (the doctor's check of a node
 * service): it connects and starts a handshake for an application no server knows, with a random
 * secret. A server of ours refuses it after its challenge, as it refuses any peer that can't prove
 * a secret; anything else (no connection, no answer, bytes of another protocol) says what is there
 * instead. Proves reachability and the protocol, never a secret.
 */
public final class NodeServiceProbe {
  static final String PROBE_APPLICATION = "rdma-shuffle-doctor-probe";

  private NodeServiceProbe() {}

  /** The outcome: whether it answers, and one line saying what was found. */
  public record Outcome(boolean answering, String line) {}

  public static Outcome probe(String host, int port, int timeoutMillis) {
    String where = host + ":" + port;
    byte[] secret = new byte[32];
    new SecureRandom().nextBytes(secret);
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(host, port), timeoutMillis);
      s.setSoTimeout(timeoutMillis);
      Handshake.client(Handshake.channel(s), PROBE_APPLICATION, secret, Purpose.CALL);
      return new Outcome(false, where + ": accepted a secret nobody holds: not a server of ours");
    } catch (Handshake.Refused r) {
      if (r.reason() == Handshake.Refused.Reason.REFUSED
          || r.reason() == Handshake.Refused.Reason.WRONG_SECRET) {
        return new Outcome(
            true,
            where
                + ": an rdma-shuffle connection server answers (it refused an unknown"
                + " application's handshake, as it should)");
      }
      return new Outcome(false, where + ": something else answers: " + r.getMessage());
    } catch (SocketTimeoutException e) {
      return new Outcome(false, where + ": no answer within " + timeoutMillis + " ms");
    } catch (IOException e) {
      return new Outcome(false, where + ": not reachable: " + e.getMessage());
    }
  }
}
