package io.rdmashuffle.transport.tcp;

import static io.rdmashuffle.transport.tcp.TcpFrameLayout.*;

import io.rdmashuffle.memory.DirectMemory;
import io.rdmashuffle.transport.ConnectionLostException;
import io.rdmashuffle.transport.FrameMac;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Writes a {@link TcpReadChannel}'s READ requests: whichever posting thread gets the send lock
 * takes every request issued and not yet sent, tags each (its {@link FrameMac} numbers them in
 * write order) and writes them with one write: the doorbell. A thread that finds the lock taken
 * leaves its requests to the holder, which looks again after letting go. Tags are computed outside
 * the channel's state lock; nothing is allocated per request.
 */
final class ReadRequestWriter {
  static final int MAX_FRAMES_PER_WRITE = 1024;

  private final TcpReadChannel channel;
  private final SocketChannel ch;
  private final FrameMac mac;
  private final ReentrantLock send = new ReentrantLock();
  private final ByteBuffer buffer;
  private final byte[] frame = new byte[REQUEST_BYTES];

  /** What {@link TcpReadChannel#takeUnsent} copies out under the state lock. */
  final int[] ids;

  final int[] rkeys;
  final int[] lengths;
  final long[] addresses;

  ReadRequestWriter(TcpReadChannel channel, SocketChannel ch, FrameMac mac, int maxRequests) {
    this.channel = channel;
    this.ch = ch;
    this.mac = mac;
    int frames = Math.min(maxRequests, MAX_FRAMES_PER_WRITE);
    this.buffer = DirectMemory.allocate(REQUEST_BYTES * frames);
    this.ids = new int[frames];
    this.rkeys = new int[frames];
    this.lengths = new int[frames];
    this.addresses = new long[frames];
  }

  /** Writes every issued request, unless another thread is writing (it picks ours up). */
  void drain() {
    while (true) {
      if (!send.tryLock()) {
        return;
      }
      try {
        int n;
        while ((n = channel.takeUnsent(this)) > 0) {
          buffer.clear();
          for (int i = 0; i < n; i++) {
            encodeRequest(frame, 0, ids[i], rkeys[i], lengths[i], addresses[i], mac);
            buffer.put(frame);
          }
          buffer.flip();
          while (buffer.hasRemaining()) {
            ch.write(buffer);
          }
        }
      } catch (IOException e) {
        channel.closeWith(
            new ConnectionLostException("sending READ requests failed", channel.peer(), null, e));
      } finally {
        send.unlock();
      }
      if (!channel.hasUnsent()) {
        return;
      }
    }
  }

  /** The channel has ended and no thread writes any more. */
  void free() {
    send.lock();
    try {
      DirectMemory.free(buffer);
    } finally {
      send.unlock();
    }
  }
}
