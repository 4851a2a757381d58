// The browser's files: the stylesheet and the live-update script, real files
// in assets/ (the build embeds them: lib/embedded.ts), read once.
import { embeddedText } from '../embedded.js';

export interface Asset {
  readonly body: string;
  readonly type: string;
}

const assetTypes = {
  'dashboard.js': 'text/javascript; charset=utf-8',
  'dashboard.css': 'text/css; charset=utf-8',
} as const;

type AssetName = keyof typeof assetTypes;

const read = new Map<AssetName, Asset>();

/** asset returns a file of assets/, undefined for a name that is not one. */
export function asset(name: string): Asset | undefined {
  if (!Object.hasOwn(assetTypes, name)) return undefined;
  const known = name as AssetName;
  let found = read.get(known);
  if (found === undefined) {
    found = {
      body: embeddedText(`dashboard/assets/${known}`),
      type: assetTypes[known],
    };
    read.set(known, found);
  }
  return found;
}
