import dns2 from 'dns2';

const { Packet } = dns2;

/** RFC 1035 response codes the tests use. */
const RCODE = { NOERROR: 0, SERVFAIL: 2, NXDOMAIN: 3 } as const;

export interface Question {
  name: string;
  type: 'TXT' | 'CNAME' | 'A' | 'OTHER';
}

/**
 * A real DNS server on 127.0.0.1 (dns2, UDP), answering from records each test
 * sets. Point the app at it with `env: { DNS_SERVERS: dns.server }`.
 */
export interface TestDnsServer {
  /** `127.0.0.1:<port>`, the form DNS_SERVERS takes. */
  server: string;
  /** Every question received, oldest first. */
  questions: Question[];
  /** Replaces the TXT records of `name` (one record per value). */
  setTxt(name: string, ...values: string[]): void;
  setCname(name: string, target: string): void;
  /** Replaces the A records of `name`. */
  setA(name: string, ...addresses: string[]): void;
  /** Answers SERVFAIL for `name`, whatever is asked (a lame or lapsed delegation). */
  setServfail(name: string): void;
  /** Removes everything about `name`, or every record when no name is given. */
  clear(name?: string): void;
  close(): Promise<void>;
}

interface Zone {
  txt?: string[];
  cname?: string;
  a?: string[];
  servfail?: boolean;
}

const key = (name: string) => name.toLowerCase().replace(/\.$/, '');

function typeName(type: number): Question['type'] {
  if (type === Packet.TYPE.TXT) return 'TXT';
  if (type === Packet.TYPE.CNAME) return 'CNAME';
  if (type === Packet.TYPE.A) return 'A';
  return 'OTHER';
}

async function listen(handle: (request: dns2.Packet, send: (response: dns2.Packet) => Promise<Buffer>) => void) {
  const server = dns2.createServer({ udp: true, handle });
  const addresses = await server.listen({ udp: { port: 0, address: '127.0.0.1' } });
  const port = addresses.udp!.port;
  return { server, address: `127.0.0.1:${port}` };
}

export async function startDnsServer(): Promise<TestDnsServer> {
  const zones = new Map<string, Zone>();
  const questions: Question[] = [];
  const { server, address } = await listen((request, send) => {
    const response = Packet.createResponseFromRequest(request);
    const [question] = request.questions;
    const name = key(question.name);
    questions.push({ name, type: typeName(question.type) });
    const zone = zones.get(name);
    if (!zone) {
      response.header.rcode = RCODE.NXDOMAIN;
    } else if (zone.servfail) {
      response.header.rcode = RCODE.SERVFAIL;
    } else if (question.type === Packet.TYPE.TXT) {
      for (const data of zone.txt ?? [])
        response.answers.push({ name: question.name, type: Packet.TYPE.TXT, class: Packet.CLASS.IN, ttl: 1, data } as dns2.Packet.Resource);
    } else if (question.type === Packet.TYPE.A) {
      for (const address of zone.a ?? [])
        response.answers.push({ name: question.name, type: Packet.TYPE.A, class: Packet.CLASS.IN, ttl: 1, address } as dns2.Packet.Resource);
    } else if (question.type === Packet.TYPE.CNAME && zone.cname) {
      response.answers.push({ name: question.name, type: Packet.TYPE.CNAME, class: Packet.CLASS.IN, ttl: 1, domain: zone.cname } as dns2.Packet.Resource);
    }
    void send(response);
  });
  const zone = (name: string) => {
    let z = zones.get(key(name));
    if (!z) zones.set(key(name), (z = {}));
    return z;
  };
  return {
    server: address,
    questions,
    setTxt: (name, ...values) => void (zone(name).txt = values),
    setCname: (name, target) => void (zone(name).cname = target),
    setA: (name, ...addresses) => void (zone(name).a = addresses),
    setServfail: (name) => void (zone(name).servfail = true),
    clear: (name) => (name === undefined ? zones.clear() : void zones.delete(key(name))),
    close: () => server.close().then(() => undefined),
  };
}

/** A DNS server that reads every question and never answers: what an unreachable resolver looks like. */
export async function startSilentDnsServer(): Promise<{ server: string; questions: Question[]; close(): Promise<void> }> {
  const questions: Question[] = [];
  const { server, address } = await listen((request) => {
    questions.push({ name: key(request.questions[0].name), type: typeName(request.questions[0].type) });
  });
  return { server: address, questions, close: () => server.close().then(() => undefined) };
}
