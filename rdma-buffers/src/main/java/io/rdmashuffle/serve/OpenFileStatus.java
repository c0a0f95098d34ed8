/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.serve;

import java.io.FileDescriptor;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.UserPrincipal;
import java.util.Map;

/**
 * {@code fstat} of an open {@link FileChannel}: the status of the file this process holds open,
 * whatever its name leads to now. Java has no fstat; the kernel's {@code /proc/self/fd/N} link
 * leads to the open file itself (not to a name), so a stat through it is one. The descriptor's
 * number is read from the JDK's channel and {@link FileDescriptor} with {@code sun.misc.Unsafe}
 * (module jdk.unsupported, open to everyone: no {@code --add-opens} needed in a NodeManager).
 *
 * <p>Where either is missing (not Linux, another JDK's channel), {@link #of} throws and the caller
 * refuses to serve rather than check by name.
 */
final class OpenFileStatus {
  private static final Object UNSAFE;
  private static final Method GET_OBJECT;
  private static final Method GET_INT;
  private static final long CHANNEL_FD;
  private static final long DESCRIPTOR_FD;
  private static final String UNAVAILABLE;

  static {
    Object unsafe = null;
    Method getObject = null;
    Method getInt = null;
    long channelFd = -1;
    long descriptorFd = -1;
    String why = null;
    try {
      Class<?> c = Class.forName("sun.misc.Unsafe");
      Field f = c.getDeclaredField("theUnsafe");
      f.setAccessible(true);
      unsafe = f.get(null);
      Method offset = c.getMethod("objectFieldOffset", Field.class);
      getObject = c.getMethod("getObject", Object.class, long.class);
      getInt = c.getMethod("getInt", Object.class, long.class);
      channelFd =
          (Long)
              offset.invoke(
                  unsafe, Class.forName("sun.nio.ch.FileChannelImpl").getDeclaredField("fd"));
      descriptorFd = (Long) offset.invoke(unsafe, FileDescriptor.class.getDeclaredField("fd"));
      if (!Files.isDirectory(Path.of("/proc/self/fd"))) {
        why = "no /proc/self/fd";
      }
    } catch (ReflectiveOperationException | RuntimeException e) {
      why = "can't find an open file's descriptor in this JDK: " + e;
    }
    UNSAFE = unsafe;
    GET_OBJECT = getObject;
    GET_INT = getInt;
    CHANNEL_FD = channelFd;
    DESCRIPTOR_FD = descriptorFd;
    UNAVAILABLE = why;
  }

  /** The file's device and inode, as {@code BasicFileAttributes.fileKey()} gives them. */
  final Object fileKey;

  final boolean regularFile;
  final int links;
  final UserPrincipal owner;

  private OpenFileStatus(Map<String, Object> unix) {
    this.fileKey = unix.get("fileKey");
    this.regularFile = Boolean.TRUE.equals(unix.get("isRegularFile"));
    this.links = ((Number) unix.get("nlink")).intValue();
    this.owner = (UserPrincipal) unix.get("owner");
  }

  /**
   * The status of the open file behind {@code channel}.
   *
   * @throws IOException when this platform can't tell it (the reason says why)
   */
  static OpenFileStatus of(FileChannel channel) throws IOException {
    if (UNAVAILABLE != null) {
      throw new IOException(UNAVAILABLE);
    }
    if (!channel.getClass().getName().equals("sun.nio.ch.FileChannelImpl")) {
      throw new IOException("not the JDK's file channel: " + channel.getClass().getName());
    }
    int fd;
    try {
      Object descriptor = GET_OBJECT.invoke(UNSAFE, channel, CHANNEL_FD);
      fd = (Integer) GET_INT.invoke(UNSAFE, descriptor, DESCRIPTOR_FD);
    } catch (ReflectiveOperationException e) {
      throw new IOException("can't read an open file's descriptor", e);
    }
    if (fd < 0 || !channel.isOpen()) {
      throw new IOException("the channel is closed");
    }
    // following the link: /proc/self/fd/N leads to the open file, never through a name
    return new OpenFileStatus(
        Files.readAttributes(
            Path.of("/proc/self/fd/" + fd), "unix:fileKey,isRegularFile,nlink,owner"));
  }
}
