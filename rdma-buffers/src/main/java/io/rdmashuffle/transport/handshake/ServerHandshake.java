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
import java.util.function.Predicate;

/**
 * The server's side of {@link HandshakeLayout} (see {@link HandshakeSide} for how it is driven),
 * holding only a few small buffers: it reads the HELLO in parts (a version it does not speak is
 * refused before the rest), sends its nonce, checks the client's proof; then the caller checks its
 * connection bounds and calls {@link #accept()} or {@link #refuseBusy}.
 *
 * <p>Every client gets the same challenge, its nonce only, and an unknown application's proof is
 * refused as a wrong secret's is, so a peer can't probe which applications a server knows, nor get
 * anything computed with a secret before it proved it.
 */
public final class ServerHandshake extends HandshakeSide {
  private enum Step {
    HEAD,
    REST,
    APPLICATION,
    PROOF,
    VERIFIED
  }

  private final ApplicationSecrets secrets;
  private final NonceHistory history;
  private final Predicate<Purpose> served;
  private Step step = Step.HEAD;
  private ByteBuffer fixed;
  private Purpose purpose;
  private byte[] clientNonce;
  private byte[] serverNonce;
  private byte[] app;
  private String application;
  private byte[] secret;
  private boolean known;

  /**
   * @param served which purposes this server hands connections to; others are refused in the
   *     challenge
   */
  public ServerHandshake(
      ApplicationSecrets secrets, NonceHistory history, Predicate<Purpose> served) {
    super(ByteBuffer.allocate(HELLO_HEAD_BYTES));
    this.secrets = secrets;
    this.history = history;
    this.served = served;
  }

  @Override
  public boolean verified() {
    return step == Step.VERIFIED && !done() && refusal() == null;
  }

  /** Whether the client's first message, its HELLO, has fully arrived (or the handshake ended). */
  public boolean helloReceived() {
    return step.ordinal() >= Step.PROOF.ordinal() || refusal() != null;
  }

  /** The application the client named (not yet proven before {@link #verified()}), or null. */
  public String application() {
    return application;
  }

  /** Sends the result and ends the handshake: the connection is authenticated. */
  @Override
  public void accept() {
    checkVerified();
    out = encodeResult(STATUS_OK, serverProof());
    established(application, purpose, secret, clientNonce, serverNonce, app);
  }

  /** Proven, but a bound refuses the connection: tells the client to retry later. */
  public void refuseBusy(String why) {
    checkVerified();
    refuse(Reason.BUSY, why, encodeResult(STATUS_BUSY, serverProof()));
  }

  /** This server's proof of the secret, for a client that proved it first. */
  private byte[] serverProof() {
    return Handshake.proof(secret, Handshake.SERVER_LABEL, clientNonce, serverNonce, purpose, app);
  }

  @Override
  public void hungUp() {
    refuse(
        Reason.HUNG_UP,
        step == Step.PROOF
            ? "client of application "
                + printable(application)
                + " hung up instead of proving the secret"
            : "client closed the connection during the handshake",
        NOTHING);
  }

  @Override
  String side() {
    return "server";
  }

  @Override
  void step(ByteBuffer b) {
    switch (step) {
      case HEAD -> onHead(b);
      case REST -> onRest();
      case APPLICATION -> onApplication(b);
      case PROOF -> onProof(b);
      default -> throw new IllegalStateException("nothing to receive in step " + step);
    }
  }

  private void onHead(ByteBuffer b) {
    int version = decodeHelloVersion(b);
    if (version != VERSION) {
      refuse(
          Reason.BAD_VERSION, "client speaks handshake version " + version, encodeVersionRefusal());
      return;
    }
    fixed = ByteBuffer.allocate(HELLO_FIXED_BYTES).put(b);
    in = fixed;
    step = Step.REST;
  }

  private void onRest() {
    Hello h = decodeHello(fixed);
    fixed = null;
    purpose = Purpose.of(h.purpose());
    if (purpose == null || !served.test(purpose)) {
      refuse(
          Reason.UNKNOWN_PURPOSE,
          "client asked for purpose=" + h.purpose() + ", not served here",
          challengeStatus(STATUS_UNKNOWN_PURPOSE));
      return;
    }
    clientNonce = h.nonce();
    NonceHistory.Origin before = history.record(clientNonce, NonceHistory.Origin.CLIENT);
    if (before != null) {
      boolean replayed = before == NonceHistory.Origin.CLIENT;
      refuse(
          replayed ? Reason.REPLAYED : Reason.REFLECTED,
          "client sent a nonce "
              + (replayed
                  ? "of an earlier handshake (replayed)"
                  : "this server issued (reflected)"),
          challengeStatus(replayed ? STATUS_REPLAYED : STATUS_REFLECTED));
      return;
    }
    in = ByteBuffer.allocate(h.applicationLength());
    step = Step.APPLICATION;
  }

  private void onApplication(ByteBuffer b) {
    app = new byte[b.remaining()];
    b.get(app);
    application = new String(app, StandardCharsets.UTF_8);
    secret = secrets.secretOf(application);
    known = secret != null;
    if (!known) {
      secret = Handshake.nonce();
    }
    serverNonce = Handshake.nonce();
    history.record(serverNonce, NonceHistory.Origin.SERVER);
    // the nonce only: nothing computed with the secret goes to a client that proved nothing
    out = encodeChallenge(STATUS_OK, serverNonce);
    in = ByteBuffer.allocate(PROOF_MESSAGE_BYTES);
    step = Step.PROOF;
  }

  private void onProof(ByteBuffer b) {
    byte[] proof = new byte[PROOF_BYTES];
    b.get(proof);
    boolean ok =
        MessageDigest.isEqual(
            Handshake.proof(secret, Handshake.CLIENT_LABEL, serverNonce, clientNonce, purpose, app),
            proof);
    if (!ok || !known) {
      refuse(
          known ? Reason.WRONG_SECRET : Reason.UNKNOWN_APPLICATION,
          "client did not prove the secret of "
              + (known ? "" : "unknown ")
              + "application "
              + printable(application),
          encodeResult(STATUS_REFUSED));
      return;
    }
    step = Step.VERIFIED;
  }

  /**
   * An application name as refusals show it: the client's choice before it proved anything, so cut
   * to {@value #SHOWN_CHARACTERS} characters and printable ASCII only (a line break or a terminal
   * escape becomes '?'), so it can't forge or fill the server's log lines.
   */
  static String printable(String s) {
    StringBuilder b = new StringBuilder(Math.min(s.length(), SHOWN_CHARACTERS) + 3);
    for (int i = 0; i < s.length() && i < SHOWN_CHARACTERS; i++) {
      char c = s.charAt(i);
      b.append(c >= 0x20 && c < 0x7f ? c : '?');
    }
    return s.length() > SHOWN_CHARACTERS ? b.append("...").toString() : b.toString();
  }

  private static final int SHOWN_CHARACTERS = 64;

  private static ByteBuffer challengeStatus(int status) {
    return encodeChallenge(status, new byte[NONCE_BYTES]);
  }

  private void checkVerified() {
    if (!verified()) {
      throw new IllegalStateException(
          "handshake is in step "
              + step
              + (refusal() != null ? ", refused" : "")
              + ", not verified");
    }
  }
}
