/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.conf;

import static org.junit.jupiter.api.Assertions.*;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every main package of the product modules has its sign ({@code package-info.java} with a {@code
 * <p>May import: a, b.} line), its line in the package map of {@code docs/architecture.md}, and
 * imports no rdma-shuffle package its sign leaves out. Reads the source trees from the project
 * root; the harness and test-support modules ({@code integration}, {@code spark-it}) are outside.
 */
class PackageSignsTest {
  /** Top-level directories whose main code is harness or test support, not product. */
  private static final Set<String> OUTSIDE = Set.of("integration", "spark-it");

  private static final Pattern MAY_IMPORT = Pattern.compile("May import:\\s*(.+?)\\.(?=\\s|$)");
  private static final Pattern MAP_LINE =
      Pattern.compile("^- `([a-z0-9_.]+)` \\(`([A-Za-z0-9_/-]+)`\\): \\S.*$", Pattern.MULTILINE);

  /**
   * A reference to one of our packages in code: an import (also static or on demand) or a fully
   * qualified name. Ours are {@code io.rdmashuffle.*} and the Spark plugin's package.
   */
  private static final Pattern REFERENCE =
      Pattern.compile(
          "\\b(io\\.rdmashuffle(?:\\s*\\.\\s*[a-z][a-z0-9_]*)*"
              + "|org\\s*\\.\\s*apache\\s*\\.\\s*spark\\s*\\.\\s*shuffle\\s*\\.\\s*rdma)"
              + "\\s*\\.\\s*[A-Z*]");

  private static final Path ROOT = Paths.get("").toAbsolutePath().getParent();

  @Test
  void everyMainPackageHasItsSign() throws IOException {
    List<String> missing = new ArrayList<>();
    for (Map.Entry<String, Path> p : mainPackages(ROOT).entrySet()) {
      if (!Files.exists(p.getValue().resolve("package-info.java"))) {
        missing.add(ROOT.relativize(p.getValue()).toString());
      } else {
        allowedImports(p.getValue()); // parses, or fails naming the file
      }
    }
    assertEquals(List.of(), missing, "main packages without package-info.java");
  }

  @Test
  void thePackageMapListsEveryMainPackageAndNothingElse() throws IOException {
    Set<String> listed = new TreeSet<>();
    Matcher m = MAP_LINE.matcher(packageMap(ROOT));
    while (m.find()) {
      listed.add(m.group(2) + " " + m.group(1));
    }
    Set<String> real = new TreeSet<>();
    for (Map.Entry<String, Path> p : mainPackages(ROOT).entrySet()) {
      real.add(module(p.getValue(), p.getKey()) + " " + p.getKey());
    }
    Set<String> notListed = new TreeSet<>(real);
    notListed.removeAll(listed);
    Set<String> notReal = new TreeSet<>(listed);
    notReal.removeAll(real);
    assertEquals(Set.of(), notListed, "main packages missing from docs/architecture.md's map");
    assertEquals(Set.of(), notReal, "docs/architecture.md's map names packages that do not exist");
  }

  @Test
  void mainCodeImportsOnlyWhatItsPackageAllows() throws IOException {
    Map<String, Path> packages = mainPackages(ROOT);
    List<String> wrong = new ArrayList<>();
    for (Map.Entry<String, Path> p : packages.entrySet()) {
      Path info = p.getValue().resolve("package-info.java");
      if (!Files.exists(info)) {
        continue; // everyMainPackageHasItsSign says so
      }
      Set<String> allowed = allowedImports(p.getValue());
      for (String a : allowed) {
        if (!packages.containsKey(a)) {
          wrong.add(ROOT.relativize(info) + " allows " + a + ", which is no main package");
        }
      }
      try (Stream<Path> files = Files.list(p.getValue())) {
        for (Path f : files.filter(f -> f.toString().endsWith(".java")).sorted().toList()) {
          for (String used : referencedPackages(Files.readString(f, StandardCharsets.UTF_8))) {
            if (!used.equals(p.getKey()) && !allowed.contains(used)) {
              wrong.add(ROOT.relativize(f) + " uses " + used);
            }
          }
        }
      }
    }
    assertEquals(
        List.of(),
        wrong,
        "imports a package its package-info's \"May import:\" line leaves out (add it there only"
            + " if the layering allows it, and say so in the package's sign)");
  }

  @Test
  void theCheckSeesImportsStaticImportsAndQualifiedNamesButNotCommentsOrStrings() {
    String source =
        "package io.rdmashuffle.fetch;\n"
            + "import io.rdmashuffle.memory.BufferPool;\n"
            + "import static io.rdmashuffle.config.RdmaShuffleConfig.PORT;\n"
            + "import io.rdmashuffle.transport.tcp.*;\n"
            + "// io.rdmashuffle.node.NodeRuntime in a comment\n"
            + "/** {@link io.rdmashuffle.serve.OutputCatalog} */\n"
            + "class A { String s = \"io.rdmashuffle.tools.Cli\";\n"
            + "  io.rdmashuffle.mapoutput.OutputId id;\n"
            + "  org.apache.spark.shuffle.rdma.SparkConfig c; }\n";
    assertEquals(
        Set.of(
            "io.rdmashuffle.memory",
            "io.rdmashuffle.config",
            "io.rdmashuffle.transport.tcp",
            "io.rdmashuffle.mapoutput",
            "org.apache.spark.shuffle.rdma"),
        referencedPackages(source));
  }

  /** Package name to directory, for every main package of the product modules. */
  static Map<String, Path> mainPackages(Path root) throws IOException {
    List<Path> sourceRoots = new ArrayList<>();
    Files.walkFileTree(
        root,
        new SimpleFileVisitor<>() {
          @Override
          public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
            Path rel = root.relativize(dir);
            String name = dir.getFileName() == null ? "" : dir.getFileName().toString();
            if (dir.equals(root)) {
              return FileVisitResult.CONTINUE;
            }
            if (rel.getNameCount() == 1 && OUTSIDE.contains(name)
                || name.equals("target")
                || name.startsWith(".")) {
              return FileVisitResult.SKIP_SUBTREE;
            }
            if (rel.endsWith(Paths.get("src", "main", "java"))) {
              sourceRoots.add(dir);
              return FileVisitResult.SKIP_SUBTREE;
            }
            return rel.getNameCount() > 5 ? FileVisitResult.SKIP_SUBTREE : FileVisitResult.CONTINUE;
          }
        });
    assertFalse(sourceRoots.isEmpty(), "no src/main/java below " + root);
    Map<String, Path> out = new TreeMap<>();
    for (Path src : sourceRoots) {
      try (Stream<Path> files = Files.walk(src)) {
        for (Path f : files.filter(f -> f.toString().endsWith(".java")).toList()) {
          Path dir = f.getParent();
          String pkg =
              src.relativize(dir).toString().replace(dir.getFileSystem().getSeparator(), ".");
          Path before = out.putIfAbsent(pkg, dir);
          assertTrue(before == null || before.equals(dir), pkg + " is in two modules");
        }
      }
    }
    return out;
  }

  /** The module directory (relative to the root) a package directory belongs to. */
  private static String module(Path dir, String pkg) {
    Path src = dir;
    for (int i = 0; i < pkg.split("\\.").length + 3; i++) {
      src = src.getParent();
    }
    return ROOT.relativize(src).toString().replace(src.getFileSystem().getSeparator(), "/");
  }

  /** The packages a package-info's {@code May import:} line names; fails when it has none. */
  static Set<String> allowedImports(Path packageDir) throws IOException {
    Path info = packageDir.resolve("package-info.java");
    String text = Files.readString(info, StandardCharsets.UTF_8);
    int start = text.indexOf("/**");
    int end = text.indexOf("*/", Math.max(start, 0));
    assertTrue(start >= 0 && end > start, info + " has no javadoc");
    String doc =
        text.substring(start + 3, end)
            .lines()
            .map(l -> l.replaceFirst("^\\s*\\*\\s?", ""))
            .collect(Collectors.joining(" "));
    Matcher m = MAY_IMPORT.matcher(doc);
    assertTrue(m.find(), info + " has no \"<p>May import: a, b.\" (or \"none.\") line");
    String list = m.group(1).trim();
    Set<String> out = new TreeSet<>();
    if (!list.equals("none")) {
      for (String s : list.split(",")) {
        String p = s.trim();
        assertTrue(p.matches("[a-z][a-z0-9_]*(\\.[a-z][a-z0-9_]*)+"), info + ": \"" + p + "\"");
        out.add(p);
      }
    }
    assertFalse(m.find(), info + " has two \"May import:\" lines");
    return out;
  }

  /** Our packages a source file names in code (imports and qualified names). */
  static Set<String> referencedPackages(String source) {
    Set<String> out = new TreeSet<>();
    Matcher m = REFERENCE.matcher(codeOnly(source));
    while (m.find()) {
      out.add(m.group(1).replaceAll("\\s", ""));
    }
    return out;
  }

  /** The source with comments, string and char literals and text blocks blanked out. */
  static String codeOnly(String s) {
    StringBuilder out = new StringBuilder(s.length());
    int i = 0;
    while (i < s.length()) {
      char c = s.charAt(i);
      if (s.startsWith("//", i)) {
        int e = s.indexOf('\n', i);
        i = e < 0 ? s.length() : e;
      } else if (s.startsWith("/*", i)) {
        int e = s.indexOf("*/", i + 2);
        i = e < 0 ? s.length() : e + 2;
        out.append(' ');
      } else if (s.startsWith("\"\"\"", i)) {
        int e = s.indexOf("\"\"\"", i + 3);
        i = e < 0 ? s.length() : e + 3;
        out.append("\"\"");
      } else if (c == '"' || c == '\'') {
        int j = i + 1;
        while (j < s.length() && s.charAt(j) != c) {
          j += s.charAt(j) == '\\' ? 2 : 1;
        }
        i = j + 1;
        out.append(c).append(c);
      } else {
        out.append(c);
        i++;
      }
    }
    return out.toString();
  }

  /** The "Package map" section of docs/architecture.md. */
  private static String packageMap(Path root) throws IOException {
    String doc = Files.readString(root.resolve("docs/architecture.md"), StandardCharsets.UTF_8);
    int start = doc.indexOf("\n## Package map\n");
    assertTrue(start >= 0, "docs/architecture.md has no \"## Package map\" section");
    int end = doc.indexOf("\n## ", start + 1);
    return doc.substring(start, end < 0 ? doc.length() : end);
  }
}
