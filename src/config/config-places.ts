import { EVENT_ID, getScalarValue, parseEvents, type Event } from 'js-yaml';

/** Where a field of a config file is written: its key (absent for a list item) and its value, as offsets. */
export interface Place {
  readonly key?: number;
  readonly value: number;
}

/** A collection being walked: its path, and for a mapping the key just read (its value comes next). */
interface Open {
  readonly path: string;
  readonly list: boolean;
  index: number;
  key?: { readonly name: string; readonly at: number } | undefined;
}

/**
 * Where each field of a config file's text is written, by its dotted path (`plans.free.perMinute`,
 * `keys.0.plan`: the paths the config's errors name). Read from js-yaml's event stream, which keeps
 * offsets into the text; JSON is YAML, so a JSON config is read the same way. Only called when a
 * config is refused: a valid one costs nothing. A text that does not parse has no places.
 */
export function configPlaces(text: string): ReadonlyMap<string, Place> {
  const places = new Map<string, Place>();
  let events: Event[];
  try {
    events = parseEvents(text, {});
  } catch {
    return places;
  }
  const open: Open[] = [];
  /** The path of the node starting now, and where its key stands; undefined for a mapping's key. */
  const next = (): { path: string; key?: number } | undefined => {
    const parent = open.at(-1);
    if (parent === undefined) return { path: '' };
    const join = (name: string): string => (parent.path === '' ? name : `${parent.path}.${name}`);
    if (parent.list) return { path: join(String(parent.index++)) };
    if (parent.key === undefined) return undefined;
    const { name, at } = parent.key;
    parent.key = undefined;
    return { path: join(name), key: at };
  };
  for (const event of events) {
    if (event.type === EVENT_ID.POP) {
      open.pop();
      continue;
    }
    if (event.type === EVENT_ID.DOCUMENT) continue;
    const at = event.type === EVENT_ID.SCALAR ? event.valueStart : event.type === EVENT_ID.ALIAS ? event.anchorStart : event.start;
    const node = next();
    if (node === undefined) {
      // A mapping's key: a scalar names the field (a key that is a collection names none).
      const parent = open.at(-1);
      if (parent === undefined) continue;
      parent.key = { name: event.type === EVENT_ID.SCALAR ? getScalarValue(text, event) : '?', at };
      if (event.type === EVENT_ID.MAPPING || event.type === EVENT_ID.SEQUENCE) open.push({ path: '?', list: false, index: 0 });
      continue;
    }
    places.set(node.path, { ...(node.key === undefined ? {} : { key: node.key }), value: at });
    if (event.type === EVENT_ID.MAPPING || event.type === EVENT_ID.SEQUENCE) {
      open.push({ path: node.path, list: event.type === EVENT_ID.SEQUENCE, index: 0 });
    }
  }
  return places;
}

/** `line:column` (both from 1) of an offset into `text`. */
export function lineColumn(text: string, offset: number): string {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return `${line}:${offset - before.lastIndexOf('\n')}`;
}
