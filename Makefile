# libsgdma: the PG021 driver core and the Linux user-space platform (UIO, u-dma-buf, /dev/mem) as a C
# library for programs on a board (docs/boards.md).
#
#   make [CC=aarch64-linux-gnu-gcc] [BUILD=build/linux/aarch64]    build libsgdma.a, libsgdma.so.* and sgdma.pc
#   make install [PREFIX=/usr/local] [DESTDIR=/staging/or/sysroot]  install them and the public headers
#   make uninstall [PREFIX=...] [DESTDIR=...]
#
# The shared object is versioned: libsgdma.so.$(SOVERSION) is the soname, libsgdma.so.$(VERSION) the file,
# libsgdma.so the link-time name.  A cross build installs into a target sysroot with DESTDIR.
VERSION    := $(shell sed -n 's/^version = "\(.*\)"/\1/p' pyproject.toml)
SOVERSION  := 0
PREFIX     ?= /usr/local
LIBDIR     ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
PKGDIR     ?= $(LIBDIR)/pkgconfig
BUILD      ?= build/linux/host
ifeq ($(origin AR),default)
AR := $(if $(filter %gcc,$(CC)),$(patsubst %gcc,%ar,$(CC)),ar)
endif
CFLAGS ?= -O2
LIB_CFLAGS := -std=c11 -fPIC -D_FILE_OFFSET_BITS=64 -Wall -Wextra -Werror -Icsrc/include $(CFLAGS)
HEADERS := driver.h pg021.h sg_contract.h platform.h platform_linux.h pcie_dma.h pcie_driver.h
SOURCES := $(wildcard csrc/driver/*.c) $(wildcard csrc/platform/linux/*.c)
OBJECTS := $(patsubst csrc/%.c,$(BUILD)/obj/%.o,$(SOURCES))
SONAME  := libsgdma.so.$(SOVERSION)
REAL    := libsgdma.so.$(VERSION)

all: $(BUILD)/libsgdma.a $(BUILD)/$(REAL) $(BUILD)/sgdma.pc

$(BUILD)/obj/%.o: csrc/%.c $(wildcard csrc/include/sgdma/*.h csrc/platform/linux/*.h csrc/driver/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(LIB_CFLAGS) -c $< -o $@

$(BUILD)/libsgdma.a: $(OBJECTS)
	rm -f $@
	$(AR) rcs $@ $^

$(BUILD)/$(REAL): $(OBJECTS)
	$(CC) -shared -Wl,-soname,$(SONAME) -o $@ $^
	ln -sf $(REAL) $(BUILD)/$(SONAME)
	ln -sf $(SONAME) $(BUILD)/libsgdma.so

# Regenerated on every run: it holds PREFIX, which the command line may change between runs.
$(BUILD)/sgdma.pc: scripts/sgdma.pc.in pyproject.toml FORCE
	@mkdir -p $(dir $@)
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' \
	    -e 's|@VERSION@|$(VERSION)|' $< > $@

install: all
	install -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR)/sgdma $(DESTDIR)$(PKGDIR)
	install -m 644 $(BUILD)/libsgdma.a $(DESTDIR)$(LIBDIR)/
	install -m 755 $(BUILD)/$(REAL) $(DESTDIR)$(LIBDIR)/
	ln -sf $(REAL) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/libsgdma.so
	install -m 644 $(addprefix csrc/include/sgdma/,$(HEADERS)) $(DESTDIR)$(INCLUDEDIR)/sgdma/
	install -m 644 $(BUILD)/sgdma.pc $(DESTDIR)$(PKGDIR)/

uninstall:
	rm -f $(DESTDIR)$(LIBDIR)/libsgdma.a $(DESTDIR)$(LIBDIR)/$(REAL) $(DESTDIR)$(LIBDIR)/$(SONAME) \
	      $(DESTDIR)$(LIBDIR)/libsgdma.so $(DESTDIR)$(PKGDIR)/sgdma.pc
	rm -f $(addprefix $(DESTDIR)$(INCLUDEDIR)/sgdma/,$(HEADERS))
	-rmdir $(DESTDIR)$(INCLUDEDIR)/sgdma

clean:
	rm -rf $(BUILD)

FORCE:

.PHONY: all install uninstall clean FORCE
