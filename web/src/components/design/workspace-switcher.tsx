import { ChevronsUpDown } from 'lucide-react';
import { Button, Label, ListBox, ListBoxItem, Popover, Select, SelectValue } from 'react-aria-components';
import { useNavigate } from 'react-router';

import type { Workspace } from '../../api';

/** The sidebar's workspace switcher: choosing one opens its projects. */
export function WorkspaceSwitcher({ workspaces, current }: { workspaces: Workspace[]; current: string | undefined }) {
  const navigate = useNavigate();
  return (
    <Select
      className="workspace-switcher"
      selectedKey={current ?? null}
      placeholder="Choose a workspace"
      onSelectionChange={(key) => {
        if (key !== null && key !== current) void navigate(`/w/${String(key)}/projects`);
      }}
    >
      <Label className="nav-heading">Workspace</Label>
      <Button className="select-button">
        <SelectValue className="select-value" />
        <ChevronsUpDown size={16} aria-hidden="true" />
      </Button>
      <Popover className="popover" placement="bottom start">
        <ListBox className="menu" items={workspaces}>
          {(w) => (
            <ListBoxItem id={w.id} className="menu-item" textValue={w.name}>
              <span className="grow">
                {w.name} <span className="muted">({w.role})</span>
              </span>
            </ListBoxItem>
          )}
        </ListBox>
      </Popover>
    </Select>
  );
}
