// Every run gets a fresh queue and removes it afterwards, also when it fails.
let made = 0;

/** freshName returns a queue name not used before in this process. */
export const freshName = (label) => `compare-${process.pid}-${made++}-${label}`;

/** withQueue opens a fresh queue of `side`, runs `action(handle, name)` on it, and drops it. */
export async function withQueue(side, label, action) {
  const name = freshName(label);
  const handle = await side.open(name);
  try {
    return await action(handle, name);
  } finally {
    await handle.drop();
  }
}
