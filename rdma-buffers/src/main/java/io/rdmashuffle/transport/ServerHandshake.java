package io.rdmashuffle.transport;

import static io.rdmashuffle.transport.HandshakeLayout.*;

import io.rdmashuffle.transport.Handshake.Refused;
import io.rdmashuffle.transport.Handshake.Refused.Reason;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.function.Predicate;

/**
 * The server's side of {@link HandshakeLayout} as a state machine that never blocks and holds only
 * a few small buffers: fill {@link #in()}, call {@link #received()}, send {@link #out()}; when
 * {@link #verified()} the caller checks its connection bounds and calls {@link #accept()} or {@link
 * #refuseBusy}. After a {@link #refusal()} the caller sends what {@link #out()} still holds (best
 * effort) and closes. One per accepted connection, on one thread at a time.
 *
 * <p>Every client gets the same challenge, its nonce only, and an unknown application's proof is
 * refused as a wrong secret's is, so a peer can't probe which applications a server knows, nor get
 * anything computed with a secret before it proved it.
 */
public final class ServerHandshake {
  private enum Step {
    HEAD,
    REST,
    APPLICATION,
    PROOF,
    VERIFIED,
    DONE,
    REFUSED
  }

  private static final ByteBuffer NOTHING = ByteBuffer.allocate(0);

  private final ApplicationSecrets secrets;
  private final NonceHistory history;
  private final Predicate<Purpose> served;
  private Step step = Step.HEAD;
  private ByteBuffer in = ByteBuffer.allocate(HELLO_HEAD_BYTES);
  private ByteBuffer out = NOTHING;
  private ByteBuffer fixed;
  private Purpose purpose;
  private byte[] clientNonce;
  private byte[] serverNonce;
  private byte[] app;
  private String application;
  private byte[] secret;
  private boolean known;
  private Refused refusal;
  private Handshake.Result result;

  /**
   * @param served which purposes this server hands connections to; others are refused in the
   *     challenge
   */
  public ServerHandshake(
      ApplicationSecrets secrets, NonceHistory history, Predicate<Purpose> served) {
    this.secrets = secrets;
    this.history = history;
    this.served = served;
  }

  /** The buffer to fill before the next {@link #received()}; null when nothing is to be read. */
  public ByteBuffer in() {
    return step.ordinal() <= Step.PROOF.ordinal() ? in : null;
  }

  /** Bytes to send now (possibly none). */
  public ByteBuffer out() {
    return out;
  }

  /**
   * The client proved the secret; the caller decides with {@link #accept()} or {@link #refuseBusy}.
   */
  public boolean verified() {
    return step == Step.VERIFIED;
  }

  public boolean done() {
    return step == Step.DONE;
  }

  public Handshake.Result result() {
    return result;
  }

  /** Why the handshake failed, or null. */
  public Refused refusal() {
    return refusal;
  }

  /** The application the client named (not yet proven before {@link #verified()}), or null. */
  public String application() {
    return application;
  }

  /** {@link #in()} is full: takes the next step. */
  public void received() {
    in.flip();
    try {
      switch (step) {
        case HEAD -> onHead();
        case REST -> onRest();
        case APPLICATION -> onApplication();
        case PROOF -> onProof();
        default -> throw new IllegalStateException("nothing to receive in step " + step);
      }
    } catch (IllegalArgumentException e) {
      refuse(
          e.getMessage().startsWith("magic=") ? Reason.BAD_MAGIC : Reason.MALFORMED,
          "client sent a malformed HELLO: " + e.getMessage(),
          NOTHING);
    }
  }

  /** Sends the result and ends the handshake: the connection is authenticated. */
  public void accept() {
    check(Step.VERIFIED);
    out = encodeResult(STATUS_OK, serverProof());
    byte[] p = {(byte) purpose.code()};
    result =
        new Handshake.Result(
            application,
            purpose,
            Handshake.hmac(secret, Handshake.SESSION_LABEL, clientNonce, serverNonce, p, app));
    step = Step.DONE;
  }

  /** Proven, but a bound refuses the connection: tells the client to retry later. */
  public void refuseBusy(String why) {
    check(Step.VERIFIED);
    refuse(Reason.BUSY, why, encodeResult(STATUS_BUSY, serverProof()));
  }

  /** This server's proof of the secret, for a client that proved it first. */
  private byte[] serverProof() {
    byte[] p = {(byte) purpose.code()};
    return Handshake.hmac(secret, Handshake.SERVER_LABEL, clientNonce, serverNonce, p, app);
  }

  /** The client closed the connection before the handshake finished. */
  public void hungUp() {
    refuse(
        Reason.HUNG_UP,
        step == Step.PROOF
            ? "client of application " + application + " hung up instead of proving the secret"
            : "client closed the connection during the handshake",
        NOTHING);
  }

  /** The deadline passed. */
  public void timedOut(long millis) {
    refuse(Reason.TIMEOUT, "no handshake within " + millis + " ms", NOTHING);
  }

  private void onHead() {
    int version = decodeHelloVersion(in);
    if (version != VERSION) {
      refuse(
          Reason.BAD_VERSION, "client speaks handshake version " + version, encodeVersionRefusal());
      return;
    }
    fixed = ByteBuffer.allocate(HELLO_FIXED_BYTES).put(in);
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

  private void onApplication() {
    app = new byte[in.remaining()];
    in.get(app);
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

  private void onProof() {
    byte[] proof = new byte[PROOF_BYTES];
    in.get(proof);
    byte[] p = {(byte) purpose.code()};
    boolean ok =
        MessageDigest.isEqual(
            Handshake.hmac(secret, Handshake.CLIENT_LABEL, serverNonce, clientNonce, p, app),
            proof);
    if (!ok || !known) {
      refuse(
          known ? Reason.WRONG_SECRET : Reason.UNKNOWN_APPLICATION,
          "client did not prove the secret of "
              + (known ? "" : "unknown ")
              + "application "
              + application,
          encodeResult(STATUS_REFUSED));
      return;
    }
    step = Step.VERIFIED;
  }

  private static ByteBuffer challengeStatus(int status) {
    return encodeChallenge(status, new byte[NONCE_BYTES]);
  }

  private void refuse(Reason reason, String message, ByteBuffer reply) {
    refusal = new Refused(reason, message);
    out = reply;
    step = Step.REFUSED;
  }

  private void check(Step expected) {
    if (step != expected) {
      throw new IllegalStateException("handshake is in step " + step + ", not " + expected);
    }
  }
}
