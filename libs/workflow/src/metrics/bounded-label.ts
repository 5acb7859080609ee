/** What a label value becomes once its label has seen `max` distinct values. */
export const OTHER_LABEL_VALUE = '_other';
const MAX_VALUE_LENGTH = 100;

/**
 * Keeps one label's values to a known number: the first `max` distinct values pass, later new
 * ones become `_other`. Prometheus keeps a series per label combination for good, so a label fed
 * from outside (a tool name, an error code) must not grow without end.
 */
export class BoundedLabel {
  private readonly seen = new Set<string>();

  constructor(private readonly max: number) {}

  of(value: string): string {
    const trimmed = value.slice(0, MAX_VALUE_LENGTH);
    if (this.seen.has(trimmed)) return trimmed;
    if (this.seen.size >= this.max) return OTHER_LABEL_VALUE;
    this.seen.add(trimmed);
    return trimmed;
  }
}

/** A BoundedLabel per owner: tool names are bounded per toolset, toolsets as a whole. */
export class BoundedLabelsPer {
  private readonly owners: BoundedLabel;
  private readonly byOwner = new Map<string, BoundedLabel>();

  constructor(
    maxOwners: number,
    private readonly maxPerOwner: number,
  ) {
    this.owners = new BoundedLabel(maxOwners);
  }

  /** `[owner, value]` as labels: `_other` for an owner past the cap, and for its values. */
  of(owner: string, value: string): [string, string] {
    const ownerLabel = this.owners.of(owner);
    if (ownerLabel === OTHER_LABEL_VALUE) return [OTHER_LABEL_VALUE, OTHER_LABEL_VALUE];
    let values = this.byOwner.get(ownerLabel);
    if (!values) this.byOwner.set(ownerLabel, (values = new BoundedLabel(this.maxPerOwner)));
    return [ownerLabel, values.of(value)];
  }
}
