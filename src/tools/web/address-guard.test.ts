import { describe, expect, it } from "vitest";
import { addressPolicy, parseCidr, parseIp, refusedAddressReason } from "./address-guard.js";

describe("the address guard", () => {
  it("refuses loopback, private, link-local, CGNAT, unspecified and metadata IPv4 addresses", () => {
    const cases: [string, RegExp][] = [
      ["127.0.0.1", /loopback/],
      ["127.255.1.2", /loopback/],
      ["10.0.0.1", /private/],
      ["172.16.0.1", /private/],
      ["172.31.255.255", /private/],
      ["192.168.1.1", /private/],
      ["169.254.1.1", /link-local/],
      ["169.254.169.254", /cloud metadata/],
      ["100.100.100.200", /cloud metadata/],
      ["100.64.0.1", /carrier-grade NAT/],
      ["0.0.0.0", /unspecified/],
      ["224.0.0.1", /multicast/],
      ["255.255.255.255", /broadcast/],
    ];
    for (const [address, reason] of cases)
      expect(refusedAddressReason(address), address).toMatch(reason);
  });

  it("lets public IPv4 addresses through, including neighbours of the private ranges", () => {
    for (const address of [
      "8.8.8.8",
      "1.1.1.1",
      "172.32.0.1",
      "172.15.255.255",
      "100.128.0.1",
      "11.0.0.1",
    ])
      expect(refusedAddressReason(address), address).toBeUndefined();
  });

  it("refuses IPv6 loopback, unspecified, unique local, link-local and metadata addresses", () => {
    const cases: [string, RegExp][] = [
      ["::1", /loopback/],
      ["0:0:0:0:0:0:0:1", /loopback/],
      ["::", /unspecified/],
      ["fd12:3456::1", /unique local/],
      ["fc00::1", /unique local/],
      ["fe80::1", /link-local/],
      ["fe80::1%eth0", /link-local/],
      ["fd00:ec2::254", /cloud metadata/],
      ["ff02::1", /multicast/],
    ];
    for (const [address, reason] of cases)
      expect(refusedAddressReason(address), address).toMatch(reason);
  });

  it("sees through IPv4-mapped, NAT64 and 6to4 forms of a private IPv4 address", () => {
    expect(refusedAddressReason("::ffff:127.0.0.1")).toBe(
      "IPv4-mapped form of a loopback address (127.0.0.1)",
    );
    expect(refusedAddressReason("::ffff:7f00:1")).toMatch(/IPv4-mapped form of a loopback/);
    expect(refusedAddressReason("::ffff:a9fe:a9fe")).toMatch(/mapped form of a cloud metadata/);
    expect(refusedAddressReason("64:ff9b::10.0.0.1")).toMatch(/NAT64 form of a private/);
    expect(refusedAddressReason("2002:c0a8:0101::1")).toMatch(
      /6to4 form of a private.*192\.168\.1\.1/,
    );
    expect(refusedAddressReason("::127.0.0.1")).toMatch(/IPv4-compatible/);
    // The same forms of a public address are public.
    expect(refusedAddressReason("::ffff:8.8.8.8")).toBeUndefined();
    expect(refusedAddressReason("64:ff9b::808:808")).toBeUndefined();
  });

  it("lets public IPv6 addresses through", () => {
    for (const address of ["2606:4700:4700::1111", "2001:4860:4860::8888", "2a00:1450::1"])
      expect(refusedAddressReason(address), address).toBeUndefined();
  });

  it("refuses what is not an IP address rather than letting it through", () => {
    expect(refusedAddressReason("localhost")).toBe("not an IP address");
    expect(refusedAddressReason("1.2.3")).toBe("not an IP address");
  });

  it("parses IPv6 with compression and a trailing dotted quad", () => {
    expect([...(parseIp("::ffff:1.2.3.4") ?? [])]).toEqual([
      0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 255, 255, 1, 2, 3, 4,
    ]);
    expect([...(parseIp("1::2") ?? [])]).toEqual([0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2]);
    expect(parseIp("::1::2")).toBeNull();
  });

  it("checks networks given in config", () => {
    expect(parseCidr("10.1.2.0/24")).toMatchObject({ prefix: 24 });
    expect(parseCidr("127.0.0.1")).toMatchObject({ prefix: 32 });
    expect(parseCidr("fd00::/8")).toMatchObject({ prefix: 8 });
    for (const bad of ["10.1.2.0/33", "10.1.2.0/x", "10.1.2.0/24/1", "intranet", "::1/129", ""])
      expect(parseCidr(bad), bad).toBeNull();
  });
});

describe("addressPolicy", () => {
  it("exempts only the networks the operator allows, in either IP form", () => {
    const refusal = addressPolicy(false, ["10.1.2.0/24", "127.0.0.1"]);
    expect(refusal("10.1.2.7")).toBeUndefined();
    expect(refusal("127.0.0.1")).toBeUndefined();
    expect(refusal("::ffff:127.0.0.1")).toBeUndefined();
    expect(refusal("10.1.3.7")).toMatch(/private/);
    expect(refusal("127.0.0.2")).toMatch(/loopback/);
    expect(refusal("::1")).toMatch(/loopback/);
    expect(refusal("8.8.8.8")).toBeUndefined();
  });

  it("allows every address when private addresses are allowed", () => {
    const refusal = addressPolicy(true, []);
    for (const address of ["127.0.0.1", "::1", "169.254.169.254", "10.0.0.1"])
      expect(refusal(address)).toBeUndefined();
  });
});
