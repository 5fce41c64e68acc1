export interface Layer {
  name: string;
  folders: string[];
}
export declare const LAYERS: Layer[];
export declare const ALLOWED_UPWARD: Record<string, string[]>;
