/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.server;

import static io.rdmashuffle.transport.server.CallFrameLayout.*;

import io.rdmashuffle.metrics.Refusal;
import io.rdmashuffle.transport.CallHandler;
import io.rdmashuffle.transport.CallRefusedException;
import io.rdmashuffle.transport.handshake.FrameMac;
import io.rdmashuffle.transport.handshake.Handshake;
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
 * of its own; at most {@link CallService#MAX_IN_FLIGHT_PER_CONNECTION} calls in the workers, and
 * while answers of {@code call.maxAnswerBytes} or more wait for the socket no request is read
 * (requests wait unread: a peer that reads no answers is then stalled, and the send timeout, which
 * only bytes written reset, cuts it off). Runs on its connection's I/O thread; workers hand answers
 * back to it.
 */
final class CallSession implements Session {
  private static final Logger LOG = LoggerFactory.getLogger(CallSession.class);

  private final CallService service;
  private final Connection conn;
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

  /**
   * Requests read per turn: then the I/O thread's other connections get theirs (the socket is still
   * readable, so the next round comes back here).
   */
  static final int FRAMES_PER_TURN = 64;

  /** Bytes of answers not yet taken by the socket. */
  private long backlog;

  private boolean reading = true;
  private boolean closed;

  CallSession(CallService service, Connection conn, Handshake.Result handshake) {
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
    int frames = 0;
    while (!closed && frames < FRAMES_PER_TURN) {
      if (!mayRead()) {
        reading = false;
        conn.wantRead(false); // back-pressure: read more when answers have gone out
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
      conn.received(); // not send progress: a caller that reads no answer is stalled all the same
      if (into.hasRemaining()) {
        continue;
      }
      if (frame == null) {
        startFrame();
      } else {
        endFrame();
        frames++;
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
  }

  /**
   * Whether another request may be read: fewer than {@link
   * CallService#MAX_IN_FLIGHT_PER_CONNECTION} calls in the workers and fewer answer bytes waiting
   * for the socket than {@code call.maxAnswerBytes}, so what a peer that reads no answers makes the
   * server hold stays bounded.
   */
  private boolean mayRead() {
    return inFlight < CallService.MAX_IN_FLIGHT_PER_CONNECTION && backlog < maxAnswer;
  }

  private void resumeReading() {
    if (!reading && !closed && mayRead()) {
      reading = true;
      conn.wantRead(true);
    }
  }

  private void answer(int id, int status, String why) {
    send(id, status, reason(why));
  }

  private void send(int id, int status, byte[] payload) {
    ByteBuffer frame = ByteBuffer.wrap(encode(id, status, payload, 0, payload.length, answers));
    backlog += frame.remaining();
    out.addLast(frame);
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
    try {
      while (!out.isEmpty()) {
        ByteBuffer b = out.peekFirst();
        int n = conn.buffers().write(conn.channel(), b);
        if (n > 0) {
          backlog -= n;
          conn.progressed();
        }
        if (b.hasRemaining()) {
          conn.wantWrite(true);
          return;
        }
        out.pollFirst();
      }
      conn.wantWrite(false);
    } finally {
      resumeReading();
    }
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
