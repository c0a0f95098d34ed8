/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.cluster;

import java.io.IOException;
import java.io.InputStream;
import java.net.ServerSocket;
import java.net.Socket;

/**
 * A TCP server that accepts every connection and reads it to the end, for the harness's tests to
 * probe reachability and a link's rate from another host: {@code TcpSink PORT}.
 */
public final class TcpSink {
  private TcpSink() {}

  public static void main(String[] args) throws IOException {
    try (ServerSocket server = new ServerSocket(Integer.parseInt(args[0]))) {
      System.out.println("listening on " + server.getLocalSocketAddress());
      while (true) {
        Socket s = server.accept();
        Thread t = new Thread(() -> drain(s));
        t.setDaemon(true);
        t.start();
      }
    }
  }

  private static void drain(Socket s) {
    try (s;
        InputStream in = s.getInputStream()) {
      byte[] b = new byte[64 * 1024];
      while (in.read(b) >= 0) {
        // discard
      }
    } catch (IOException e) {
      // the peer went away
    }
  }
}
