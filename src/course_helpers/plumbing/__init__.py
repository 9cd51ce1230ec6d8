"""Course machinery: process and file plumbing for the agents' tools.

    commands          run a shell command for the agent, and make sure it stops
    command_output    read a command's output: its head and tail, at one cost for any bytes
    process_groups    stop a command's process group, children and escapees included
    command_sandbox   the operating-system sandbox for those commands (bubblewrap, Linux)
    file_sandbox      race-free file access inside one project folder (the file tools' door)
    folder_walk       the walk behind list_files: a loop, never a recursion, links not followed
    git_layout        where a repository's real git folder is, whatever its layout
    host_git          git on your machine over a folder an agent could write
    truncate          shorten tool output before the model reads it

Notebook 07 explains each of them and shows them at work; you use them, you do not build them.
"""
