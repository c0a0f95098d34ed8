/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.verbs.disni;

import com.ibm.disni.verbs.IbvCQ;
import com.ibm.disni.verbs.IbvCompChannel;
import com.ibm.disni.verbs.IbvContext;
import com.ibm.disni.verbs.IbvMr;
import com.ibm.disni.verbs.IbvPd;
import com.ibm.disni.verbs.IbvQP;
import com.ibm.disni.verbs.IbvQPInitAttr;
import com.ibm.disni.verbs.IbvSendWR;
import com.ibm.disni.verbs.IbvSge;
import com.ibm.disni.verbs.IbvWC;
import com.ibm.disni.verbs.RdmaCm;
import com.ibm.disni.verbs.RdmaCmEvent;
import com.ibm.disni.verbs.RdmaCmEvent.EventType;
import com.ibm.disni.verbs.RdmaCmId;
import com.ibm.disni.verbs.RdmaConnParam;
import com.ibm.disni.verbs.RdmaEventChannel;
import com.ibm.disni.verbs.SVCPollCq;
import com.ibm.disni.verbs.SVCPostSend;
import com.ibm.disni.verbs.SVCRegMr;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.IntUnaryOperator;

/**
 * Real verbs through DiSNI and our native library, both ends in one process (run by {@code
 * DisniSmoke} inside the Soft-RoCE guest, through NativeLibrary's class loader): a server on the
 * first address registers a buffer with {@code IBV_ACCESS_REMOTE_READ} only, a client on the second
 * connects an RC queue pair through RDMA-CM and
 *
 * <ol>
 *   <li>posts a batch of RDMA READs, only the last signalled, waits on the completion channel,
 *       polls one completion and checks every byte; then executes the same {@code SVCPostSend}
 *       again after changing its requests in place;
 *   <li>READs with a wrong rkey: a remote access error completion ({@code IBV_WC_REM_ACCESS_ERR});
 *   <li>on a second connection, WRITEs into the read-only region: refused the same way, bytes
 *       unchanged;
 *   <li>probes the error paths a transport must time out on: connecting to a port nobody listens
 *       on, resolving an address nobody has.
 * </ol>
 *
 * Every wait is bounded; a failure throws with what was expected and what came.
 */
public final class ReadSmoke implements Function<String[], String> {
  private static final int SIZE = 1 << 20;
  private static final int BATCH = 16;
  private static final int CQ_SIZE = 64;
  private static final int TIMEOUT_MS = 60_000;
  private static final int RESOLVE_TIMEOUT_MS = 2_000;
  private static final int IBV_WC_SUCCESS = IbvWC.IbvWcStatus.IBV_WC_SUCCESS.ordinal();
  private static final int IBV_WC_REM_ACCESS_ERR =
      IbvWC.IbvWcStatus.IBV_WC_REM_ACCESS_ERR.ordinal();

  private final List<String> report = new ArrayList<>();

  @Override
  public String apply(String[] args) {
    try {
      return run(args[0], args[1], Integer.parseInt(args[2]));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void log(String line) {
    System.out.println("[smoke] " + line);
  }

  private String run(String serverIp, String clientIp, int port) throws IOException {
    long t0 = System.nanoTime();
    Closer closer = new Closer();
    try {
      Server server = Server.open(closer, serverIp, port);
      log(
          "server listening on "
              + serverIp
              + ":"
              + port
              + ", served region "
              + SIZE
              + " bytes, REMOTE_READ only");
      try (Closer c = new Closer()) {
        Link link = Link.connect(c, server, clientIp);
        readBatch(link, server);
        readWithBadRkey(link, server);
      }
      try (Closer c = new Closer()) {
        Link link = Link.connect(c, server, clientIp);
        writeIsRefused(link, server);
      }
      connectToClosedPort(serverIp, clientIp, port + 1);
      resolveUnknownAddress(clientIp, "198.18.100.99", port);
    } finally {
      closer.close();
    }
    report.add("total " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0) + " ms");
    return String.join("; ", report);
  }

  private void readBatch(Link link, Server server) throws IOException {
    int chunk = SIZE / BATCH;
    List<IbvSendWR> wrs = new ArrayList<>();
    for (int i = 0; i < BATCH; i++) {
      wrs.add(
          rdmaWr(
              IbvSendWR.IBV_WR_RDMA_READ,
              100 + i,
              i == BATCH - 1,
              link.landingMr,
              (long) i * chunk,
              chunk,
              server.servedMr.getAddr() + (long) i * chunk,
              server.servedMr.getRkey()));
    }
    link.cq.reqNotification(false).execute().free();
    long t0 = System.nanoTime();
    SVCPostSend post = link.qp.postSend(wrs, null);
    post.execute();
    if (!link.compChannel.getCqEvent(link.cq, TIMEOUT_MS)) {
      throw new IOException("READ batch: no completion event within " + TIMEOUT_MS + " ms");
    }
    link.cq.ackEvents(1);
    IbvWC wc = pollOne(link.cq, "READ batch");
    long micros = TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - t0);
    expect(wc, 100 + BATCH - 1, IBV_WC_SUCCESS, "READ batch");
    if (wc.getOpcode() != IbvWC.IbvWcOpcode.IBV_WC_RDMA_READ.getOpcode()) {
      throw new IOException("READ batch: completion opcode " + wc.getOpcode());
    }
    if (anyCompletion(link.cq)) {
      throw new IOException("READ batch: a completion for an unsignalled READ");
    }
    checkLanding(link, i -> i, "READ batch");
    report.add(
        BATCH
            + " READs x "
            + chunk
            + " bytes, 1 signalled: all "
            + SIZE
            + " bytes match ("
            + micros
            + " us, completion channel used)");
    log(report.get(report.size() - 1));

    // The same SVCPostSend again, changed in place (as a transport reuses them): each request
    // now reads the mirrored chunk, and the signalled one has a new wr_id.
    for (int i = 0; i < SIZE; i++) {
      link.landing.put(i, (byte) 0);
    }
    for (int i = 0; i < BATCH; i++) {
      post.getWrMod(i)
          .getRdmaMod()
          .setRemote_addr(server.servedMr.getAddr() + (long) (BATCH - 1 - i) * chunk);
    }
    post.getWrMod(BATCH - 1).setWr_id(500);
    post.execute().free();
    expect(pollOne(link.cq, "reused READ batch"), 500, IBV_WC_SUCCESS, "reused READ batch");
    checkLanding(link, i -> (BATCH - 1 - i / chunk) * chunk + i % chunk, "reused READ batch");
    report.add("the same SVCPostSend re-executed after in-place changes: mirrored chunks match");
    log(report.get(report.size() - 1));
  }

  /** Landing byte i must hold served byte source(i). */
  private static void checkLanding(Link link, IntUnaryOperator source, String what)
      throws IOException {
    for (int i = 0; i < SIZE; i++) {
      byte want = pattern(source.applyAsInt(i));
      if (link.landing.get(i) != want) {
        throw new IOException(
            what + ": byte " + i + " is " + link.landing.get(i) + ", expected " + want);
      }
    }
  }

  private void readWithBadRkey(Link link, Server server) throws IOException {
    int badRkey = server.servedMr.getRkey() ^ 0x5a5a00;
    IbvSendWR wr =
        rdmaWr(
            IbvSendWR.IBV_WR_RDMA_READ,
            7,
            true,
            link.landingMr,
            0,
            4096,
            server.servedMr.getAddr(),
            badRkey);
    link.qp.postSend(List.of(wr), null).execute().free();
    IbvWC wc = pollOne(link.cq, "READ with a bad rkey");
    expect(wc, 7, IBV_WC_REM_ACCESS_ERR, "READ with a bad rkey");
    report.add("READ with a bad rkey: IBV_WC_REM_ACCESS_ERR");
    log(report.get(report.size() - 1));
  }

  private void writeIsRefused(Link link, Server server) throws IOException {
    for (int i = 0; i < 4096; i++) {
      link.landing.put(i, (byte) 0x77);
    }
    IbvSendWR wr =
        rdmaWr(
            IbvSendWR.IBV_WR_RDMA_WRITE,
            9,
            true,
            link.landingMr,
            0,
            4096,
            server.servedMr.getAddr(),
            server.servedMr.getRkey());
    link.qp.postSend(List.of(wr), null).execute().free();
    IbvWC wc = pollOne(link.cq, "WRITE into a REMOTE_READ-only region");
    expect(wc, 9, IBV_WC_REM_ACCESS_ERR, "WRITE into a REMOTE_READ-only region");
    for (int i = 0; i < 4096; i++) {
      if (server.served.get(i) != pattern(i)) {
        throw new IOException("WRITE was refused, yet served byte " + i + " changed");
      }
    }
    report.add("WRITE into the REMOTE_READ-only region: IBV_WC_REM_ACCESS_ERR, bytes unchanged");
    log(report.get(report.size() - 1));
  }

  /** A connect to a port nobody listens on ends in an event, not a hang; which one, we record. */
  private void connectToClosedPort(String serverIp, String clientIp, int closedPort)
      throws IOException {
    try (Closer c = new Closer()) {
      RdmaEventChannel ch = c.eventChannel();
      RdmaCmId id = c.id(ch);
      id.bindAddr(new InetSocketAddress(clientIp, 0));
      id.resolveAddr(null, new InetSocketAddress(serverIp, closedPort), RESOLVE_TIMEOUT_MS);
      await(ch, "resolve " + serverIp, EventType.RDMA_CM_EVENT_ADDR_RESOLVED);
      id.resolveRoute(RESOLVE_TIMEOUT_MS);
      await(ch, "route to " + serverIp, EventType.RDMA_CM_EVENT_ROUTE_RESOLVED);
      long t0 = System.nanoTime();
      id.connect(connParam());
      EventType got =
          await(
              ch,
              "connect to a closed port",
              EventType.RDMA_CM_EVENT_REJECTED,
              EventType.RDMA_CM_EVENT_UNREACHABLE,
              EventType.RDMA_CM_EVENT_CONNECT_ERROR);
      report.add(
          "connect to closed port "
              + closedPort
              + ": "
              + got
              + " after "
              + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0)
              + " ms");
      log(report.get(report.size() - 1));
    }
  }

  /** Resolving an address no host has ends in ADDR_ERROR once its timeout passes. */
  private void resolveUnknownAddress(String clientIp, String nobody, int port) throws IOException {
    try (Closer c = new Closer()) {
      RdmaEventChannel ch = c.eventChannel();
      RdmaCmId id = c.id(ch);
      id.bindAddr(new InetSocketAddress(clientIp, 0));
      long t0 = System.nanoTime();
      id.resolveAddr(null, new InetSocketAddress(nobody, port), RESOLVE_TIMEOUT_MS);
      EventType got =
          await(
              ch,
              "resolve " + nobody,
              EventType.RDMA_CM_EVENT_ADDR_ERROR,
              EventType.RDMA_CM_EVENT_UNREACHABLE,
              EventType.RDMA_CM_EVENT_ADDR_RESOLVED);
      report.add(
          "resolve "
              + nobody
              + " (nobody), timeout "
              + RESOLVE_TIMEOUT_MS
              + " ms: "
              + got
              + " after "
              + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0)
              + " ms");
      log(report.get(report.size() - 1));
    }
  }

  // ---- setup ---------------------------------------------------------------------------------

  private static byte pattern(int i) {
    return (byte) (i * 31 + (i >>> 8) + 7);
  }

  private static RdmaConnParam connParam() throws IOException {
    RdmaConnParam p = new RdmaConnParam();
    p.setRetry_count((byte) 7);
    p.setRnr_retry_count((byte) 7);
    return p;
  }

  private static IbvSendWR rdmaWr(
      int opcode,
      long wrId,
      boolean signalled,
      IbvMr local,
      long localOffset,
      int length,
      long remoteAddr,
      int rkey) {
    IbvSge sge = new IbvSge();
    sge.setAddr(local.getAddr() + localOffset);
    sge.setLength(length);
    sge.setLkey(local.getLkey());
    LinkedList<IbvSge> sgl = new LinkedList<>();
    sgl.add(sge);
    IbvSendWR wr = new IbvSendWR();
    wr.setWr_id(wrId);
    wr.setOpcode(opcode);
    wr.setSend_flags(signalled ? IbvSendWR.IBV_SEND_SIGNALED : 0);
    wr.setSg_list(sgl);
    wr.setNum_sge(1);
    wr.getRdma().setRemote_addr(remoteAddr);
    wr.getRdma().setRkey(rkey);
    return wr;
  }

  private static IbvMr register(IbvPd pd, ByteBuffer buffer, int access) throws IOException {
    SVCRegMr reg = pd.regMr(buffer, access).execute();
    IbvMr mr = reg.getMr();
    reg.free();
    return mr;
  }

  private static void expect(IbvWC wc, long wrId, int status, String what) throws IOException {
    if (wc.getWr_id() != wrId || wc.getStatus() != status) {
      throw new IOException(
          what
              + ": completion wr_id="
              + wc.getWr_id()
              + " status="
              + IbvWC.IbvWcStatus.valueOf(wc.getStatus())
              + ", expected wr_id="
              + wrId
              + " status="
              + IbvWC.IbvWcStatus.valueOf(status));
    }
  }

  private static IbvWC pollOne(IbvCQ cq, String what) throws IOException {
    IbvWC[] wcs = {new IbvWC()};
    SVCPollCq poll = cq.poll(wcs, 1);
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(TIMEOUT_MS);
    try {
      while (System.nanoTime() < deadline) {
        if (poll.execute().getPolls() > 0) {
          return wcs[0];
        }
        sleep(1);
      }
    } finally {
      poll.free();
    }
    throw new IOException(what + ": no completion within " + TIMEOUT_MS + " ms");
  }

  private static boolean anyCompletion(IbvCQ cq) throws IOException {
    IbvWC[] wcs = {new IbvWC(), new IbvWC()};
    SVCPollCq poll = cq.poll(wcs, 2);
    try {
      return poll.execute().getPolls() > 0;
    } finally {
      poll.free();
    }
  }

  private static void sleep(long ms) throws IOException {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
  }

  /**
   * Waits for one of {@code expected} on the channel; DISCONNECTED and TIMEWAIT_EXIT of earlier
   * connections are skipped, anything else fails.
   */
  static EventType await(RdmaEventChannel ch, String what, EventType... expected)
      throws IOException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(TIMEOUT_MS);
    while (System.nanoTime() < deadline) {
      RdmaCmEvent event = ch.getCmEvent(500);
      if (event == null) {
        continue;
      }
      EventType type = EventType.values()[event.getEvent()];
      event.ackEvent();
      for (EventType e : expected) {
        if (e == type) {
          return type;
        }
      }
      if (type == EventType.RDMA_CM_EVENT_DISCONNECTED
          || type == EventType.RDMA_CM_EVENT_TIMEWAIT_EXIT) {
        log(what + ": skipping " + type + " of an earlier connection");
        continue;
      }
      throw new IOException(what + ": got " + type + ", expected one of " + List.of(expected));
    }
    throw new IOException(what + ": no event within " + TIMEOUT_MS + " ms");
  }

  /** Closes what it opened, last first; keeps the first failure. */
  static final class Closer implements AutoCloseable {
    interface Step {
      void run() throws Exception;
    }

    private final Deque<Step> steps = new ArrayDeque<>();

    <T> T add(T resource, Step close) {
      steps.push(close);
      return resource;
    }

    RdmaEventChannel eventChannel() throws IOException {
      RdmaEventChannel ch = RdmaEventChannel.createEventChannel();
      return add(ch, ch::destroyEventChannel);
    }

    RdmaCmId id(RdmaEventChannel ch) throws IOException {
      RdmaCmId id = ch.createId(RdmaCm.RDMA_PS_TCP);
      return add(id, id::destroyId);
    }

    @Override
    public void close() throws IOException {
      IOException first = null;
      while (!steps.isEmpty()) {
        try {
          steps.pop().run();
        } catch (Exception e) {
          if (first == null) {
            first = new IOException("close failed", e);
          } else {
            first.addSuppressed(e);
          }
        }
      }
      if (first != null) {
        throw first;
      }
    }
  }

  /** The passive side: listening id, protection domain, the served region. */
  static final class Server {
    RdmaEventChannel channel;
    RdmaCmId listenId;
    IbvContext context;
    IbvPd pd;
    ByteBuffer served;
    IbvMr servedMr;

    static Server open(Closer c, String ip, int port) throws IOException {
      Server s = new Server();
      s.channel = c.eventChannel();
      s.listenId = c.id(s.channel);
      s.listenId.bindAddr(new InetSocketAddress(ip, port));
      s.listenId.listen(8);
      s.context = s.listenId.getVerbs();
      IbvPd pd = s.context.allocPd();
      s.pd = c.add(pd, pd::deallocPd);
      s.served = ByteBuffer.allocateDirect(SIZE);
      for (int i = 0; i < SIZE; i++) {
        s.served.put(i, pattern(i));
      }
      IbvMr mr = register(s.pd, s.served, IbvMr.IBV_ACCESS_REMOTE_READ);
      s.servedMr = c.add(mr, () -> mr.deregMr().execute().free());
      return s;
    }
  }

  /** One connection: the client's queue pair and landing buffer, and the server's accepted id. */
  static final class Link {
    IbvCompChannel compChannel;
    IbvCQ cq;
    IbvQP qp;
    ByteBuffer landing;
    IbvMr landingMr;

    static Link connect(Closer c, Server server, String clientIp) throws IOException {
      Link l = new Link();
      RdmaEventChannel ch = c.eventChannel();
      RdmaCmId id = c.id(ch);
      id.bindAddr(new InetSocketAddress(clientIp, 0));
      InetSocketAddress dst = (InetSocketAddress) server.listenId.getSource();
      id.resolveAddr(null, dst, RESOLVE_TIMEOUT_MS);
      await(ch, "resolve " + dst, EventType.RDMA_CM_EVENT_ADDR_RESOLVED);
      id.resolveRoute(RESOLVE_TIMEOUT_MS);
      await(ch, "route to " + dst, EventType.RDMA_CM_EVENT_ROUTE_RESOLVED);
      IbvContext ctx = id.getVerbs();
      IbvPd pd = ctx.allocPd();
      c.add(pd, pd::deallocPd);
      l.compChannel = ctx.createCompChannel();
      c.add(l.compChannel, l.compChannel::destroyCompChannel);
      l.cq = ctx.createCQ(l.compChannel, CQ_SIZE, 0);
      c.add(l.cq, l.cq::destroyCQ);
      l.qp = c.add(id.createQP(pd, qpAttr(l.cq)), id::destroyQP);
      c.add(id, id::disconnect);
      l.landing = ByteBuffer.allocateDirect(SIZE);
      IbvMr mr = register(pd, l.landing, IbvMr.IBV_ACCESS_LOCAL_WRITE);
      l.landingMr = c.add(mr, () -> mr.deregMr().execute().free());
      id.connect(connParam());

      // The server: the request arrives on the listening id's channel with a new id.
      RdmaCmEvent request = null;
      long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(TIMEOUT_MS);
      while (request == null && System.nanoTime() < deadline) {
        RdmaCmEvent e = server.channel.getCmEvent(500);
        if (e != null) {
          e.ackEvent();
          if (e.getEvent() == EventType.RDMA_CM_EVENT_CONNECT_REQUEST.ordinal()) {
            request = e;
          } else {
            log("server: skipping " + EventType.values()[e.getEvent()]);
          }
        }
      }
      if (request == null) {
        throw new IOException("server: no connect request within " + TIMEOUT_MS + " ms");
      }
      RdmaCmId accepted = c.add(request.getConnIdPriv(), request.getConnIdPriv()::destroyId);
      IbvContext sctx = accepted.getVerbs();
      IbvCompChannel scc = sctx.createCompChannel();
      c.add(scc, scc::destroyCompChannel);
      IbvCQ scq = sctx.createCQ(scc, CQ_SIZE, 0);
      c.add(scq, scq::destroyCQ);
      c.add(accepted.createQP(server.pd, qpAttr(scq)), accepted::destroyQP);
      c.add(accepted, accepted::disconnect);
      accepted.accept(connParam());
      await(ch, "client connect", EventType.RDMA_CM_EVENT_ESTABLISHED);
      await(server.channel, "server accept", EventType.RDMA_CM_EVENT_ESTABLISHED);
      log(
          "connected "
              + id.getSource()
              + " -> "
              + id.getDestination()
              + ", qp "
              + l.qp.getQp_num());
      return l;
    }

    private static IbvQPInitAttr qpAttr(IbvCQ cq) {
      IbvQPInitAttr attr = new IbvQPInitAttr();
      attr.setQp_type(IbvQP.IBV_QPT_RC);
      attr.setSend_cq(cq);
      attr.setRecv_cq(cq);
      attr.cap().setMax_send_wr(CQ_SIZE);
      attr.cap().setMax_recv_wr(1);
      attr.cap().setMax_send_sge(1);
      attr.cap().setMax_recv_sge(1);
      return attr;
    }
  }
}
