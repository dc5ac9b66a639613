// Package bench measures the toolbus relay next to a bare khatru relay on
// the same eventstore backend, so that the cost of toolbus's policies and
// connection engine is a ratio measured in one run on one machine rather
// than an absolute number that means nothing elsewhere.
//
// Both relays run as child processes of the toolbus binary (`toolbus relay`
// and the internal `toolbus bench-baseline`), each on a fresh data directory
// and a free loopback port, and the same load generator, speaking raw
// websockets, drives both. Everything a client would spend CPU on outside
// the relay — signing events, encoding frames — is done before timing
// starts, since the generator shares the machine's cores with the relay.
//
// Workloads run one after the other. Within a workload the two relays are
// measured in alternating rounds (A B, B A, ...), each round on fresh
// relays, so that slow drift of the machine — fsync latency on a shared
// virtual disk, above all — is spread over both instead of deciding the
// ratio.
//
// The tools, mcp and git suites compare a path through toolbus with the
// direct path instead (a tool over stdio rather than on the bus, git over
// file:// rather than through the git bridge). Their directWorkloads run on
// the toolbus relay alone, a fresh one per round, and each round measures
// both paths, taking turns (call by call; git alternates which goes first),
// so that one function fills both columns: a metric's sample is the toolbus path's kind and its floor the
// direct path's. In their rows the "khatru" column is that direct path.
package bench
