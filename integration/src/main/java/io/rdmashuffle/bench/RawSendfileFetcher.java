/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.bench;

import io.rdmashuffle.memory.DirectMemory;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A bare block fetch over one loopback TCP connection, for reference: no protocol, no checks, no
 * callbacks. A request is a block index (4 bytes); the server answers with the block's bytes and
 * nothing else, by {@code FileChannel.transferTo} (sendfile); the client keeps the same window of
 * requests in flight and reads each block into one block-sized direct buffer, reused.
 *
 * <p>{@code -Dbench.rawChunk=65536} reads every block in 64 KiB pieces into one reused 64 KiB
 * buffer instead, as Netty receives (and as Spark's side of this benchmark then releases at once):
 * it shows how much of a large block's fetch time is writing the bytes into memory that is not in
 * the CPU cache.
 */
final class RawSendfileFetcher implements FetchSide {
  private final FileChannel file;
  private final ServerSocketChannel listener;
  private final SocketChannel client;
  private final SocketChannel served;
  private final Thread server;
  private volatile int blockSize;

  RawSendfileFetcher(Path path) throws IOException {
    file = FileChannel.open(path, StandardOpenOption.READ);
    listener = ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0));
    client = SocketChannel.open(listener.getLocalAddress());
    client.setOption(StandardSocketOptions.TCP_NODELAY, true);
    served = listener.accept();
    served.setOption(StandardSocketOptions.TCP_NODELAY, true);
    server = new Thread(this::serve, "raw-sendfile-server");
    server.setDaemon(true);
    server.start();
  }

  private void serve() {
    ByteBuffer request = ByteBuffer.allocateDirect(4 * 1024);
    try {
      while (true) {
        if (served.read(request) < 0) {
          return;
        }
        request.flip();
        while (request.remaining() >= 4) {
          long position = (long) request.getInt() * blockSize;
          long done = 0;
          while (done < blockSize) {
            long n = file.transferTo(position + done, blockSize - done, served);
            if (n <= 0) {
              throw new IOException("block " + position / blockSize + " is past the file's end");
            }
            done += n;
          }
        }
        request.compact();
      }
    } catch (IOException e) {
      // the client closed the connection, or a block was past the file's end: closing the
      // connection makes the client's read fail rather than wait
      try {
        served.close();
      } catch (IOException ignored) {
        // already closed
      }
    } finally {
      DirectMemory.free(request);
    }
  }

  @Override
  public String name() {
    Integer chunk = Integer.getInteger("bench.rawChunk");
    return "bare sendfile loop" + (chunk == null ? "" : " (" + chunk + "-byte receive buffer)");
  }

  @Override
  public long fetchAll(int size, int blocks, int passes, int window) throws Exception {
    this.blockSize = size;
    int total = blocks * passes;
    Semaphore room = new Semaphore(window);
    AtomicReference<Exception> failure = new AtomicReference<>();
    // requests go out from their own thread, as each block arrives the reader frees a slot
    Thread requester =
        new Thread(
            () -> {
              ByteBuffer request = ByteBuffer.allocate(4);
              try {
                for (int i = 0; i < total; i++) {
                  room.acquire();
                  request.clear();
                  request.putInt(0, i % blocks);
                  while (request.hasRemaining()) {
                    client.write(request);
                  }
                }
              } catch (IOException | InterruptedException e) {
                failure.compareAndSet(null, e);
              }
            },
            "raw-sendfile-requests");
    requester.setDaemon(true);
    requester.start();
    int chunk = Math.min(size, Integer.getInteger("bench.rawChunk", size));
    ByteBuffer block = ByteBuffer.allocateDirect(chunk);
    long bytes = 0;
    try {
      for (int i = 0; i < total && failure.get() == null; i++) {
        for (int left = size; left > 0; left -= chunk) {
          block.clear().limit(Math.min(chunk, left));
          while (block.hasRemaining()) {
            if (client.read(block) < 0) {
              throw new IOException("the server closed the connection");
            }
          }
        }
        bytes += size;
        room.release();
      }
    } finally {
      DirectMemory.free(block);
    }
    requester.join();
    if (failure.get() != null) {
      throw failure.get();
    }
    return bytes;
  }

  @Override
  public void close() {
    try {
      client.close();
      served.close();
      listener.close();
      file.close();
    } catch (IOException e) {
      // closing a benchmark's sockets
    }
  }
}
