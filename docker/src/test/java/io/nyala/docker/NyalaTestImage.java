package io.nyala.docker;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;
import java.util.zip.ZipFile;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.images.builder.ImageFromDockerfile;
import org.testcontainers.utility.DockerImageName;

/**
 * The Nyala image for the Docker tests, built from {@code minicluster/target/dist/lib} and
 * {@code docker/image/} on first use and tagged {@code nyala-test:VERSION-HASH}, the hash over
 * every file that goes into it: a rerun with nothing changed finds the tag and builds nothing.
 * Skips the calling test, naming the reason, where there is no engine (docs/docker.md).
 */
final class NyalaTestImage {
  static final String BASE = "nyala-base:bookworm";
  private static DockerImageName image;

  private NyalaTestImage() {}

  static Path repoRoot() {
    return Path.of(System.getProperty("nyala.repo.root", "..")).toAbsolutePath().normalize();
  }

  /** Skips the test, with docker/engine.sh's reason if it gave one, when no engine answers. */
  static void assumeDocker() {
    String file = System.getenv().getOrDefault("NYALA_DOCKER_UNAVAILABLE_FILE",
        System.getProperty("java.io.tmpdir") + "/nyala-docker/unavailable");
    String reason = "no Docker engine answers (docker/engine.sh starts one)";
    try {
      if (Files.exists(Path.of(file))) {
        reason = "no Docker engine: " + Files.readString(Path.of(file)).strip();
      }
    } catch (IOException e) {
      // keep the generic reason
    }
    assumeTrue(DockerClientFactory.instance().isDockerAvailable(), reason);
  }

  /** The image, built now unless a build of the same content is already tagged. */
  static synchronized DockerImageName get() {
    if (image != null) {
      return image;
    }
    Path root = repoRoot();
    Path lib = root.resolve("minicluster/target/dist/lib");
    if (!Files.isDirectory(lib)) {
      throw new IllegalStateException("no " + lib + ": build the distribution first "
          + "(./mvnw -B -DskipTests package)");
    }
    Path dir = root.resolve("docker/image");
    boolean localBase = exists(BASE);
    String tag = "nyala-test:" + System.getProperty("nyala.version", "dev") + "-"
        + contentHash(lib, dir, localBase ? BASE + "@" + imageId(BASE) : "default");
    if (!exists(tag)) {
      ImageFromDockerfile build = new ImageFromDockerfile(tag, false)
          .withFileFromPath("nyala/lib", lib)
          .withFileFromPath("nyala/entrypoint.sh", dir.resolve("entrypoint.sh"))
          .withFileFromPath("nyala/healthcheck.sh", dir.resolve("healthcheck.sh"))
          .withFileFromPath("Dockerfile", dir.resolve("Dockerfile"));
      if (localBase) {
        build.withBuildArg("BASE_IMAGE", BASE);
      }
      build.get();
      removeOlderBuilds(tag);
    }
    image = DockerImageName.parse(tag);
    return image;
  }

  /**
   * Removes the images of earlier builds, so that a machine that runs the tests after every
   * change keeps one (each is a full copy of the base under the vfs storage driver). An image a
   * container still uses stays.
   */
  private static void removeOlderBuilds(String keep) {
    var client = DockerClientFactory.instance().client();
    for (var img : client.listImagesCmd().withReferenceFilter("nyala-test").exec()) {
      String[] tags = img.getRepoTags();
      if (tags == null || List.of(tags).contains(keep)) {
        continue;
      }
      for (String t : tags) {
        try {
          client.removeImageCmd(t).exec();
        } catch (RuntimeException e) {
          // in use or already gone: it goes with a later build
        }
      }
    }
  }

  /** The image's id: a base rebuilt under the same tag makes a new Nyala image too. */
  private static String imageId(String tag) {
    return DockerClientFactory.instance().client().inspectImageCmd(tag).exec().getId();
  }

  private static boolean exists(String tag) {
    try {
      DockerClientFactory.instance().client().inspectImageCmd(tag).exec();
      return true;
    } catch (com.github.dockerjava.api.exception.NotFoundException e) {
      return false;
    }
  }

  /**
   * A hash of what goes into the image: the base (name and id), each file's name and content;
   * for a jar, its entries' names and CRCs, so that a jar rebuilt with new timestamps but the
   * same classes keeps the tag.
   */
  private static String contentHash(Path lib, Path imageDir, String base) {
    try {
      MessageDigest md = MessageDigest.getInstance("SHA-256");
      md.update(base.getBytes(StandardCharsets.UTF_8));
      for (Path dir : List.of(lib, imageDir)) {
        try (Stream<Path> files = Files.list(dir)) {
          for (Path f : files.filter(Files::isRegularFile).sorted().toList()) {
            md.update(f.getFileName().toString().getBytes(StandardCharsets.UTF_8));
            if (f.toString().endsWith(".jar")) {
              hashJar(md, f);
            } else {
              md.update(Files.readAllBytes(f));
            }
          }
        }
      }
      return HexFormat.of().formatHex(md.digest(), 0, 6);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static void hashJar(MessageDigest md, Path jar) throws IOException {
    try (ZipFile zip = new ZipFile(jar.toFile())) {
      zip.stream().map(e -> e.getName() + ":" + e.getCrc()).sorted()
          .forEach(s -> md.update(s.getBytes(StandardCharsets.UTF_8)));
    }
  }
}
