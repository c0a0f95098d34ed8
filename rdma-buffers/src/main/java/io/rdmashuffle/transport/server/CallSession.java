package io.rdmashuffle.transport.server;

import static io.rdmashuffle.transport.server.CallFrameLayout.*;

import io.rdmashuffle.transport.CallHandler;
import io.rdmashuffle.transport.CallRefusedException;
import io.rdmashuffle.transport.FrameMac;
import io.rdmashuffle.transport.Handshake;
import io.rdmashuffle.transport.Refusal;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server's side of one CALL connection: reads request frames and checks their tags, hands each
 * to a call worker (or answers at once: unknown service, busy), and sends the answers, each tagged,
 * in the order they are ready. Holds the request being read and the answers not yet sent, no buffer
 * of its own; at most {@link CallService#MAX_IN_FLIGHT_PER_CONNECTION} calls in the workers (then
 * requests wait unread). Runs on its connection's I/O thread; workers hand answers back to it.
 */
final class CallSession implements Session {
  private static final Logger LOG = LoggerFactory.getLogger(CallSession.class);

  private final CallService service;
  private final ServedConnection conn;
  private final CallHandler.Caller caller;
  private final FrameMac requests;
  private final FrameMac answers;
  private final int maxRequest;
  private final int maxAnswer;
  private final ByteBuffer header = ByteBuffer.allocate(HEADER_BYTES);

  /** The frame being read (header, payload, tag) once its header is in, else null. */
  private ByteBuffer frame;

  private Header current;
  private int inFlight;
  private final ArrayDeque<ByteBuffer> out = new ArrayDeque<>();
  private boolean closed;

  CallSession(CallService service, ServedConnection conn, Handshake.Result handshake) {
    this.service = service;
    this.conn = conn;
    this.caller = new CallHandler.Caller(handshake.application(), conn.remote());
    this.requests = handshake.clientToServer();
    this.answers = handshake.serverToClient();
    this.maxRequest = service.server().limits().maxCallRequestBytes();
    this.maxAnswer = service.server().limits().maxCallAnswerBytes();
  }

  @Override
  public void readable() throws IOException {
    while (!closed) {
      if (inFlight >= CallService.MAX_IN_FLIGHT_PER_CONNECTION) {
        conn.wantRead(false); // back-pressure: read more when an answer has gone out
        return;
      }
      ByteBuffer into = frame == null ? header : frame;
      int n = conn.buffers().read(conn.channel(), into);
      if (n < 0) {
        conn.close(null, null);
        return;
      }
      if (n == 0) {
        return;
      }
      conn.progressed();
      if (into.hasRemaining()) {
        continue;
      }
      if (frame == null) {
        startFrame();
      } else {
        endFrame();
      }
    }
  }

  private void startFrame() {
    try {
      current = decodeHeader(header.array(), maxRequest, CallService.MAX_SERVICE);
    } catch (IllegalArgumentException e) {
      conn.close(Refusal.FRAME_REJECTED, "CALL request header: " + e.getMessage());
      return;
    }
    frame = ByteBuffer.allocate(frameBytes(current.length()));
    frame.put(header.array());
    header.clear();
  }

  private void endFrame() {
    byte[] f = frame.array();
    Header h = current;
    frame = null;
    current = null;
    if (!verify(f, h.length(), requests)) {
      conn.close(
          Refusal.FRAME_REJECTED,
          "CALL request failed its authentication tag" + " (forged, replayed or altered)");
      return;
    }
    CallHandler handler = service.handler(h.code());
    if (handler == null) {
      answer(h.id(), CallRefusedException.UNKNOWN_SERVICE, "no service " + h.code() + " here");
      return;
    }
    inFlight++;
    ByteBuffer request = ByteBuffer.wrap(f, HEADER_BYTES, h.length()).slice().asReadOnlyBuffer();
    if (!service.workers().tryRun(() -> run(handler, h, request))) {
      inFlight--;
      service
          .server()
          .log()
          .refused(
              Refusal.CALLS_BUSY,
              conn,
              "every call worker is busy and" + " the queue is full; answered busy",
              null);
      answer(h.id(), CallRefusedException.BUSY, "busy: every call worker is taken, retry later");
    }
  }

  /** On a call worker. */
  private void run(CallHandler handler, Header h, ByteBuffer request) {
    int status = STATUS_OK;
    byte[] payload;
    try {
      ByteBuffer a = handler.answer(caller, request);
      if (a.remaining() > maxAnswer) {
        status = CallRefusedException.TOO_LARGE;
        payload =
            reason(
                "answer of " + a.remaining() + " bytes exceeds call.maxAnswerBytes=" + maxAnswer);
      } else {
        payload = new byte[a.remaining()];
        a.get(payload);
      }
    } catch (CallRefusedException e) {
      status = e.status();
      payload = reason(e.reason());
    } catch (Throwable t) {
      LOG.error("call service {} failed on a call of {}", h.code(), caller.application(), t);
      status = CallRefusedException.FAILED;
      payload = reason("the service failed: " + t);
    }
    int s = status;
    byte[] p = payload;
    conn.loop().execute(() -> answered(h.id(), s, p));
  }

  private void answered(int id, int status, byte[] payload) {
    inFlight--;
    if (closed) {
      return;
    }
    send(id, status, payload);
    conn.wantRead(true);
  }

  private void answer(int id, int status, String why) {
    send(id, status, reason(why));
  }

  private void send(int id, int status, byte[] payload) {
    out.addLast(ByteBuffer.wrap(encode(id, status, payload, 0, payload.length, answers)));
    try {
      flush();
    } catch (IOException e) {
      conn.close(null, null);
    }
  }

  private static byte[] reason(String why) {
    byte[] b = String.valueOf(why).getBytes(StandardCharsets.UTF_8);
    if (b.length <= CallRefusedException.MAX_REASON_BYTES) {
      return b;
    }
    return java.util.Arrays.copyOf(b, CallRefusedException.MAX_REASON_BYTES);
  }

  private void flush() throws IOException {
    while (!out.isEmpty()) {
      ByteBuffer b = out.peekFirst();
      int n = conn.buffers().write(conn.channel(), b);
      if (n > 0) {
        conn.progressed();
      }
      if (b.hasRemaining()) {
        conn.wantWrite(true);
        return;
      }
      out.pollFirst();
    }
    conn.wantWrite(false);
  }

  @Override
  public void writable() throws IOException {
    flush();
  }

  @Override
  public boolean hasPendingOutput() {
    return !out.isEmpty();
  }

  /** Calls in the workers; a request read in part is not work (a peer stalled in one idles). */
  @Override
  public boolean busy() {
    return inFlight > 0;
  }

  @Override
  public Refusal check(long nowNanos) {
    return null;
  }

  @Override
  public void closed() {
    closed = true;
    out.clear();
  }
}
