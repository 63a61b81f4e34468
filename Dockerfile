# The release image: goreleaser copies the binary it built for each
# platform into the build context (see .goreleaser.yaml, dockers_v2).
FROM gcr.io/distroless/static-debian12:nonroot
ARG TARGETPLATFORM
COPY ${TARGETPLATFORM}/herd /usr/local/bin/herd
USER nonroot:nonroot
ENTRYPOINT ["/usr/local/bin/herd"]
