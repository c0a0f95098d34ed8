/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.handshake;

import static io.rdmashuffle.transport.handshake.HandshakeLayout.*;

import io.rdmashuffle.transport.handshake.Handshake.Refused.Reason;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Arrays;

/**
 * The client's side of {@link HandshakeLayout} (see {@link HandshakeSide} for how it is driven): it
 * sends its HELLO, reads the server's nonce, proves the secret first, then checks the server's
 * proof in the RESULT.
 */
public final class ClientHandshake extends HandshakeSide {
  private final String application;
  private final byte[] app;
  private final byte[] secret;
  private final Purpose purpose;
  private final byte[] clientNonce = Handshake.nonce();
  private byte[] serverNonce;

  public ClientHandshake(String application, byte[] secret, Purpose purpose) {
    super(ByteBuffer.allocate(CHALLENGE_BYTES));
    this.application = application;
    this.app = application.getBytes(StandardCharsets.UTF_8);
    this.secret = secret.clone();
    this.purpose = purpose;
    this.out = encodeHello(purpose.code(), clientNonce, app);
  }

  @Override
  public void hungUp() {
    refuse(Reason.HUNG_UP, "peer closed the connection during the handshake", NOTHING);
  }

  @Override
  String side() {
    return "client";
  }

  @Override
  void step(ByteBuffer b) {
    if (serverNonce == null) {
      onChallenge(decodeChallenge(b));
    } else {
      onResult(b);
    }
  }

  private void onChallenge(Challenge c) {
    switch (c.status()) {
      case STATUS_OK -> {}
      case STATUS_BAD_VERSION -> {
        refuse(
            Reason.BAD_VERSION, "peer speaks another handshake version than " + VERSION, NOTHING);
        return;
      }
      case STATUS_UNKNOWN_PURPOSE -> {
        refuse(
            Reason.UNKNOWN_PURPOSE,
            "peer does not serve "
                + purpose
                + " connections (it runs another transport or version)",
            NOTHING);
        return;
      }
      case STATUS_REPLAYED, STATUS_REFLECTED -> {
        refuse(
            c.status() == STATUS_REPLAYED ? Reason.REPLAYED : Reason.REFLECTED,
            "peer refused our handshake as "
                + (c.status() == STATUS_REPLAYED ? "replayed" : "reflected"),
            NOTHING);
        return;
      }
      default -> {
        refuse(Reason.MALFORMED, "peer sent challenge status=" + c.status(), NOTHING);
        return;
      }
    }
    if (Arrays.equals(c.nonce(), clientNonce)) {
      refuse(Reason.REFLECTED, "peer sent our own nonce back: a reflected handshake", NOTHING);
      return;
    }
    serverNonce = c.nonce();
    // the client proves first; the server proves itself in its RESULT
    out =
        ByteBuffer.wrap(
            Handshake.proof(
                secret, Handshake.CLIENT_LABEL, serverNonce, clientNonce, purpose, app));
    in = ByteBuffer.allocate(RESULT_BYTES);
  }

  private void onResult(ByteBuffer b) {
    int status = decodeResult(b);
    if (status == STATUS_REFUSED) {
      refuse(
          Reason.WRONG_SECRET,
          "peer refused our proof: we could not prove the secret of application "
              + application
              + " to it (a wrong secret, or an application it does not serve)",
          NOTHING);
      return;
    }
    if (status != STATUS_OK && status != STATUS_BUSY) {
      refuse(Reason.MALFORMED, "peer sent result status=" + status, NOTHING);
      return;
    }
    byte[] expected =
        Handshake.proof(secret, Handshake.SERVER_LABEL, clientNonce, serverNonce, purpose, app);
    if (!MessageDigest.isEqual(expected, decodeResultProof(b))) {
      refuse(
          Reason.WRONG_SECRET,
          "peer could not prove the secret of application "
              + application
              + " (it is not a server of that application)",
          NOTHING);
      return;
    }
    if (status == STATUS_BUSY) {
      refuse(Reason.BUSY, "peer is at a connection bound; retry later", NOTHING);
      return;
    }
    out = NOTHING;
    established(application, purpose, secret, clientNonce, serverNonce, app);
  }
}
